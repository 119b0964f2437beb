import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { bundledInputs, npmPurl, packageFolders, spdxDocument } from "../../scripts/sbom";
import { repoPath } from "../manifests/kustomize";

const lock = JSON.parse(readFileSync(repoPath("package-lock.json"), "utf8")) as {
  packages: Record<string, { version?: string; license?: string }>;
};
const lockPackages = lock.packages;

describe("scripts/sbom.ts", () => {
  test("a file counts as inside only when it put bytes into the output", () => {
    const metafile = {
      outputs: {
        "./cocoon-webhook": {
          inputs: {
            "src/main.ts": { bytesInOutput: 300 },
            "node_modules/zod/index.js": { bytesInOutput: 26 },
            "node_modules/typescript/lib/typescript.js": { bytesInOutput: 0 },
          },
        },
      },
    };
    expect(bundledInputs(metafile)).toEqual(["src/main.ts", "node_modules/zod/index.js"]);
  });

  test("packages are keyed by their install folder: scoped, and nested ones apart", () => {
    expect(
      packageFolders([
        "src/main.ts",
        "node_modules/@hono/zod-validator/dist/index.js",
        "node_modules/hono/dist/hono.js",
        "node_modules/hono/dist/utils/url.js",
        "node_modules/a/node_modules/@s/b/lib/c.js",
        "node_modules/a/node_modules/d/index.js",
      ]),
    ).toEqual([
      "node_modules/@hono/zod-validator",
      "node_modules/a/node_modules/@s/b",
      "node_modules/a/node_modules/d",
      "node_modules/hono",
    ]);
  });

  test("a purl percent-encodes the scope's @", () => {
    expect(npmPurl({ name: "@hono/zod-validator", version: "0.9.1" })).toBe(
      "pkg:npm/%40hono/zod-validator@0.9.1",
    );
  });

  test("versions, licences and checksums come from package-lock.json; the runtime per target", () => {
    const x64 = spdxDocument(input("linux-x64"));
    const locked = (folder: string) => {
      const { version, license } = lockPackages[`node_modules/${folder}`] ?? {};
      return `${folder}@${version} ${license}`;
    };
    expect(
      x64.packages.map((pkg) => `${pkg.name}@${pkg.versionInfo} ${pkg.licenseDeclared}`),
    ).toEqual([
      "cocoon-webhook-linux-x64@0.0.0-test Apache-2.0",
      locked("@oven/bun-linux-x64-baseline"),
      locked("debug"),
      locked("yaml"),
    ]);
    expect(x64.packages[3]?.checksums[0]?.checksumValue).toMatch(/^[0-9a-f]{128}$/);
    expect(spdxDocument(input("linux-arm64")).packages[1]?.name).toBe("@oven/bun-linux-aarch64");
  });

  test("a bundled file in a folder package-lock.json does not pin is an error", () => {
    expect(() =>
      spdxDocument({ ...input("linux-x64"), bundled: ["node_modules/not-installed/index.js"] }),
    ).toThrow(/no version and integrity for node_modules\/not-installed/);
  });
});

function input(target: "linux-x64" | "linux-arm64") {
  return {
    target,
    binaryName: `cocoon-webhook-${target}`,
    binarySha256: "0".repeat(64),
    version: "0.0.0-test",
    created: "2026-01-01T00:00:00Z",
    bundled: ["node_modules/yaml/dist/index.js", "node_modules/debug/src/node.js"],
    lock,
  };
}
