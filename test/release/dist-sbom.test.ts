/*
 * The SBOMs `make dist` writes beside the release binaries (run by
 * `make dist-test`), checked against the binaries' own bytes: the npm
 * packages listed are those whose files the embedded source map names, and
 * the runtime listed is the one whose code the executable carries.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import packageJson from "../../package.json";
import { ensureRuntime, pinnedRuntime, RELEASE_TARGETS } from "../../scripts/bun-runtime";
import { npmPurl, packageFolders } from "../../scripts/sbom";
import { repoPath } from "../manifests/kustomize";
import { elfSections, embeddedSourceTables } from "./compiled-binary";

const TARGETS = ["linux-x64", "linux-arm64"] as const;
const lock = JSON.parse(readFileSync(repoPath("package-lock.json"), "utf8")) as {
  packages: Record<string, { version: string }>;
};

interface SpdxPackage {
  SPDXID: string;
  name: string;
  versionInfo: string;
  primaryPackagePurpose: string;
  checksums: { algorithm: string; checksumValue: string }[];
  externalRefs?: { referenceType: string; referenceLocator: string }[];
}
interface SpdxDocument {
  spdxVersion: string;
  packages: SpdxPackage[];
  relationships: { spdxElementId: string; relationshipType: string; relatedSpdxElement: string }[];
}

const binaryPath = (target: string) => repoPath(`dist/cocoon-webhook-${target}`);
const sbomOf = (target: string): SpdxDocument =>
  JSON.parse(readFileSync(`${binaryPath(target)}.spdx.json`, "utf8"));
const nameAndVersion = (pkg: { name: string; versionInfo: string }) =>
  `${pkg.name}@${pkg.versionInfo}`;

describe.each(TARGETS)("the SBOM of cocoon-webhook-%s", (target) => {
  const bytes = readFileSync(binaryPath(target));
  const chunks = embeddedSourceTables(bytes);
  const sbom = sbomOf(target);
  const byPurpose = (purpose: string) =>
    sbom.packages.filter((pkg) => pkg.primaryPackagePurpose === purpose);

  test("describes this binary, by its SHA-256, at package.json's version", () => {
    const [binary] = byPurpose("APPLICATION");
    expect(sbom.spdxVersion).toBe("SPDX-2.3");
    expect(binary).toMatchObject({
      name: `cocoon-webhook-${target}`,
      versionInfo: packageJson.version,
      checksums: [
        { algorithm: "SHA256", checksumValue: createHash("sha256").update(bytes).digest("hex") },
      ],
    });
    expect(sbom.relationships[0]).toEqual({
      spdxElementId: "SPDXRef-DOCUMENT",
      relationshipType: "DESCRIBES",
      relatedSpdxElement: binary?.SPDXID ?? "",
    });
  });

  test("lists exactly the npm packages whose files the binary's bundle holds", () => {
    const inside = packageFolders(chunks.flat()).map((folder) => {
      const name = folder.slice(folder.lastIndexOf("node_modules/") + "node_modules/".length);
      return `${name}@${lock.packages[folder]?.version}`;
    });
    const listed = byPurpose("LIBRARY").map(nameAndVersion);
    expect(listed.sort()).toEqual(inside.sort());
    // What `npm sbom --omit=dev` got wrong: the bundled runtime dependencies are in, types are out.
    for (const name of Object.keys(packageJson.dependencies)) {
      expect(listed).toContain(`${name}@${packageJson.dependencies[name as "zod"]}`);
    }
    expect(listed.filter((entry) => entry.startsWith("@types/"))).toEqual([]);
  });

  test("the bundle is split: client-node, loaded only for a KUBECONFIG, is not in the chunk serve runs from", () => {
    const chunkOf = (file: string) => chunks.findIndex((chunk) => chunk.includes(file));
    const serve = chunkOf("src/server/serve-command.ts");
    const clientNode = chunks.findIndex((chunk) =>
      chunk.some((file) => file.includes("node_modules/@kubernetes/client-node/")),
    );
    expect(serve).toBeGreaterThanOrEqual(0);
    expect(clientNode).toBeGreaterThanOrEqual(0);
    expect(clientNode).not.toBe(serve);
    expect(chunkOf("src/cli/validate/command.ts")).not.toBe(serve);
  });

  test("lists the Bun runtime the binary is built on, and the binary carries its code", () => {
    const pin = pinnedRuntime(lock, target);
    expect(byPurpose("FRAMEWORK").map(nameAndVersion)).toEqual([
      `${RELEASE_TARGETS[target]}@${packageJson.devDependencies.bun}`,
    ]);
    const runtime = elfSections(
      readFileSync(ensureRuntime(pin, repoPath("node_modules/.cache/bun-runtime"))),
    );
    const binary = elfSections(bytes);
    for (const section of [".text", ".rodata"]) {
      const code = runtime.get(section);
      expect(code?.length ?? 0).toBeGreaterThan(1_000_000);
      expect(
        Buffer.compare(binary.get(section) ?? new Uint8Array(), code ?? new Uint8Array()),
      ).toBe(0);
    }
  });

  test("names each package by purl and the binary CONTAINS each", () => {
    const [binary, ...contained] = sbom.packages;
    for (const pkg of contained) {
      expect(pkg.externalRefs?.[0]).toMatchObject({
        referenceType: "purl",
        referenceLocator: npmPurl({ name: pkg.name, version: pkg.versionInfo }),
      });
      expect(pkg.checksums[0]?.algorithm).toBe("SHA512");
    }
    expect(sbom.relationships.slice(1)).toEqual(
      contained.map((pkg) => ({
        spdxElementId: binary?.SPDXID ?? "",
        relationshipType: "CONTAINS",
        relatedSpdxElement: pkg.SPDXID,
      })),
    );
  });
});

test("each architecture has an SBOM of its own", () => {
  const [x64, arm64] = TARGETS.map((target) => JSON.stringify(sbomOf(target).packages.slice(0, 2)));
  expect(x64).not.toBe(arm64);
});
