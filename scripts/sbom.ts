/*
 * Writes the SPDX 2.3 SBOM of one release binary: the npm packages its bundle
 * holds and the Bun runtime it is built on.
 *
 *   bun scripts/sbom.ts <target> <binary> <metafile>    writes <binary>.spdx.json
 *
 * What is inside comes from the build's own record, `bun build --metafile`:
 * every input file that put bytes into the output, grouped by the
 * node_modules folder it was installed in; each folder's version, licence and
 * integrity come from package-lock.json. So a package the bundle pulls in that
 * npm counts as a dev dependency (debug's optional supports-color) is listed,
 * and one the bundle leaves out (types, tools) is not, whatever package.json
 * says. The runtime is the one scripts/bun-runtime.ts embeds for the target.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { z } from "zod";
import packageJson from "../package.json";
import { isReleaseTarget, pinnedRuntime, type RELEASE_TARGETS } from "./bun-runtime";

const REPO_ROOT = resolve(import.meta.dir, "..");
const NODE_MODULES = "node_modules/";

const metafileSchema = z.object({
  outputs: z.record(
    z.string(),
    z.object({ inputs: z.record(z.string(), z.object({ bytesInOutput: z.number() })) }),
  ),
});

const lockSchema = z.object({
  packages: z.record(
    z.string(),
    z.looseObject({
      version: z.string().optional(),
      integrity: z.string().optional(),
      license: z.string().optional(),
    }),
  ),
});
type Lock = z.infer<typeof lockSchema>;

/** The input files that put bytes into the bundle (a file reduced to nothing is not inside). */
export function bundledInputs(metafile: unknown): string[] {
  const { outputs } = metafileSchema.parse(metafile);
  return Object.values(outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path),
  );
}

/**
 * The install folder of each package a module path lies in, as
 * package-lock.json keys them (`node_modules/a/node_modules/@s/b`), sorted.
 */
export function packageFolders(paths: Iterable<string>): string[] {
  const folders = new Set<string>();
  for (const path of paths) {
    const at = path.lastIndexOf(NODE_MODULES);
    if (at < 0) continue;
    const [first = "", second = ""] = path.slice(at + NODE_MODULES.length).split("/");
    folders.add(
      `${path.slice(0, at + NODE_MODULES.length)}${first.startsWith("@") ? `${first}/${second}` : first}`,
    );
  }
  return [...folders].sort();
}

interface NpmPackage {
  readonly name: string;
  readonly version: string;
  readonly integrity: string;
  readonly license?: string;
}

function lockedPackage(lock: Lock, folder: string): NpmPackage {
  const entry = lock.packages[folder];
  if (!entry?.version || !entry.integrity) {
    throw new Error(
      `package-lock.json has no version and integrity for ${folder}; run npm install`,
    );
  }
  const name = folder.slice(folder.lastIndexOf(NODE_MODULES) + NODE_MODULES.length);
  return { name, version: entry.version, integrity: entry.integrity, license: entry.license };
}

/** The package URL (purl) of an npm package; the scope's `@` is percent-encoded. */
export function npmPurl({ name, version }: { name: string; version: string }): string {
  return `pkg:npm/${name.replace(/^@/, "%40")}@${version}`;
}

function spdxId(prefix: string, { name, version }: { name: string; version: string }): string {
  return `SPDXRef-${prefix}-${`${name}-${version}`.replace(/[^A-Za-z0-9.-]/g, "-")}`;
}

/** One npm package as an SPDX package: purl, the lock file's sha512, its declared licence. */
function spdxPackage(npm: NpmPackage, id: string, purpose: "LIBRARY" | "FRAMEWORK") {
  const [algorithm, base64 = ""] = npm.integrity.split("-", 2);
  if (algorithm !== "sha512") throw new Error(`${npm.name}: integrity is not sha512`);
  return {
    SPDXID: id,
    name: npm.name,
    versionInfo: npm.version,
    downloadLocation: "NOASSERTION",
    filesAnalyzed: false,
    checksums: [
      { algorithm: "SHA512", checksumValue: Buffer.from(base64, "base64").toString("hex") },
    ],
    licenseConcluded: "NOASSERTION",
    licenseDeclared: npm.license ?? "NOASSERTION",
    copyrightText: "NOASSERTION",
    primaryPackagePurpose: purpose,
    externalRefs: [
      {
        referenceCategory: "PACKAGE-MANAGER",
        referenceType: "purl",
        referenceLocator: npmPurl(npm),
      },
    ],
  };
}

export interface SbomInput {
  readonly target: keyof typeof RELEASE_TARGETS;
  readonly binaryName: string;
  readonly binarySha256: string;
  readonly version: string;
  /** ISO 8601 without fractions: the commit time, so a rebuild writes the same SBOM. */
  readonly created: string;
  readonly bundled: readonly string[];
  readonly lock: unknown;
}

export function spdxDocument(input: SbomInput) {
  const lock = lockSchema.parse(input.lock);
  const runtimePin = pinnedRuntime(input.lock, input.target);
  const runtime = {
    ...runtimePin,
    license: lock.packages[`node_modules/${runtimePin.name}`]?.license,
  };
  const libraries = packageFolders(input.bundled).map((folder) => lockedPackage(lock, folder));
  const binaryId = `SPDXRef-Package-${input.binaryName}`;
  const runtimeId = spdxId("Runtime", runtime);
  const libraryIds = libraries.map((library) => spdxId("Package", library));
  return {
    spdxVersion: "SPDX-2.3",
    dataLicense: "CC0-1.0",
    SPDXID: "SPDXRef-DOCUMENT",
    name: `${input.binaryName} ${input.version}`,
    documentNamespace: `https://github.com/cocoonstack/cocoon-webhook/spdx/${input.binaryName}/${input.version}/${input.binarySha256}`,
    creationInfo: {
      created: input.created,
      creators: ["Tool: cocoon-webhook scripts/sbom.ts (bun build --metafile)"],
    },
    packages: [
      {
        SPDXID: binaryId,
        name: input.binaryName,
        versionInfo: input.version,
        downloadLocation: "NOASSERTION",
        filesAnalyzed: false,
        checksums: [{ algorithm: "SHA256", checksumValue: input.binarySha256 }],
        licenseConcluded: packageJson.license,
        licenseDeclared: packageJson.license,
        copyrightText: "NOASSERTION",
        primaryPackagePurpose: "APPLICATION",
        comment: `bun build --compile for ${input.target}: the Bun runtime with the bundle of the npm packages appended`,
      },
      spdxPackage(runtime, runtimeId, "FRAMEWORK"),
      ...libraries.map((library, index) =>
        spdxPackage(library, libraryIds[index] ?? "", "LIBRARY"),
      ),
    ],
    relationships: [
      {
        spdxElementId: "SPDXRef-DOCUMENT",
        relationshipType: "DESCRIBES",
        relatedSpdxElement: binaryId,
      },
      ...[runtimeId, ...libraryIds].map((id) => ({
        spdxElementId: binaryId,
        relationshipType: "CONTAINS",
        relatedSpdxElement: id,
      })),
    ],
  };
}

if (import.meta.main) {
  const [target = "", binary = "", metafile = ""] = process.argv.slice(2);
  if (!isReleaseTarget(target) || binary === "" || metafile === "") {
    process.stderr.write("usage: bun scripts/sbom.ts <target> <binary> <metafile>\n");
    process.exit(2);
  }
  // The commit time, so that a rebuild writes the same SBOM; a build without one (BUILD_TIME
  // "unknown", e.g. a container build given no SOURCE_DATE_EPOCH) is stamped with the clock.
  const stamped = process.env.BUILD_TIME ?? "";
  const created = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(stamped)
    ? stamped
    : new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const document = spdxDocument({
    target,
    binaryName: basename(binary),
    binarySha256: createHash("sha256").update(readFileSync(binary)).digest("hex"),
    version: packageJson.version,
    created,
    bundled: bundledInputs(JSON.parse(readFileSync(metafile, "utf8"))),
    lock: JSON.parse(readFileSync(join(REPO_ROOT, "package-lock.json"), "utf8")),
  });
  writeFileSync(`${binary}.spdx.json`, `${JSON.stringify(document, null, 2)}\n`);
}
