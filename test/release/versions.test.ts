import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { parse } from "yaml";
import packageJson from "../../package.json";
import {
  BUN_TARGETS,
  integrityOf,
  isReleaseTarget,
  pinnedRuntime,
  RELEASE_TARGETS,
} from "../../scripts/bun-runtime";
import { readYamlDocuments, repoPath } from "../manifests/kustomize";

const lock: unknown = JSON.parse(readFileSync(repoPath("package-lock.json"), "utf8"));
const lockPackages = (lock as { packages: Record<string, { engines?: { node?: string } }> })
  .packages;
const makefile = readFileSync(repoPath("Makefile"), "utf8");
const workflows = readdirSync(repoPath(".github/workflows")).map((name) => ({
  name,
  text: readFileSync(repoPath(`.github/workflows/${name}`), "utf8"),
}));

/** The lowest Node.js version `engines.node` (">=X.Y.Z") admits. */
function minimumNode(): string {
  const match = /^>=(\d+\.\d+\.\d+)$/.exec(packageJson.engines.node);
  if (!match?.[1]) throw new Error(`engines.node ${packageJson.engines.node} is not ">=X.Y.Z"`);
  return match[1];
}

describe("one version, from package.json", () => {
  test("manifests/default pins the image tag to it", () => {
    const [kustomization] = readYamlDocuments(repoPath("manifests/default/kustomization.yaml"));
    expect(kustomization?.images).toEqual([
      { name: "ghcr.io/cocoonstack/cocoon-webhook", newTag: packageJson.version },
    ]);
  });

  test("the top CHANGELOG.md entry is it", () => {
    const changelog = readFileSync(repoPath("CHANGELOG.md"), "utf8");
    const top = /^## \[(\d+\.\d+\.\d+[^\]]*)\] - (\d{4}-\d\d-\d\d)$/m.exec(changelog);
    expect(top?.[1]).toBe(packageJson.version);
  });

  test("the release workflow refuses a tag other than v<version> and pushes <version>", () => {
    const release = workflows.find((workflow) => workflow.name === "release.yml")?.text ?? "";
    expect(release).toContain(`"$\{GITHUB_REF_NAME}" != "v$\{version}"`);
    expect(release).toContain('version="$(node -p \'require("./package.json").version\')"');
    expect(release).toContain(`IMAGE_TAG="$\{{ needs.check.outputs.version }}"`);
  });
});

describe("release workflow", () => {
  const release = parse(workflows.find((workflow) => workflow.name === "release.yml")?.text ?? "");

  test("runs on v* tags only", () => {
    expect(release.on).toEqual({ push: { tags: ["v*"] } });
  });

  test("publishes every make dist binary with its checksum", () => {
    const targets = /^DIST_TARGETS := (.+)$/m.exec(makefile)?.[1]?.split(" ") ?? [];
    expect(targets.sort()).toEqual(["linux-arm64", "linux-x64"]);
    for (const target of targets) expect(Object.keys(RELEASE_TARGETS)).toContain(target);
    const publish = JSON.stringify(release.jobs.release.steps);
    for (const target of targets) {
      expect(publish).toContain(`dist/cocoon-webhook-${target} `);
      expect(publish).toContain(`dist/cocoon-webhook-${target}.sha256`);
    }
  });

  test("builds the image for both architectures and may push packages", () => {
    const image = release.jobs.image;
    expect(image.permissions).toEqual({ contents: "read", packages: "write" });
    expect(JSON.stringify(image.steps)).toContain("PLATFORMS=linux/amd64,linux/arm64");
    expect(release.jobs.image.needs).toContain("kind");
    expect(release.jobs.release.needs).toContain("image");
  });
});

describe("workflows", () => {
  test("every action is pinned to a full version", () => {
    const uses = workflows.flatMap((workflow) =>
      [...workflow.text.matchAll(/uses: (\S+)/g)].map((match) => match[1] ?? ""),
    );
    expect(uses.length).toBeGreaterThan(0);
    for (const action of uses) expect(action).toMatch(/^[\w.-]+\/[\w.-]+@v\d+\.\d+\.\d+$/);
  });

  test("CI runs make test with qemu required, and the kind e2e script", () => {
    const ci = parse(workflows.find((workflow) => workflow.name === "ci.yml")?.text ?? "");
    const runs = Object.values(ci.jobs as Record<string, { steps: { run?: string }[] }>).flatMap(
      (job) => job.steps.map((step) => step.run ?? ""),
    );
    expect(runs).toContain("make test");
    expect(ci.jobs.test.steps.at(-1)).toEqual({ run: "make test", env: { REQUIRE_QEMU: "1" } });
    expect(JSON.stringify(ci.jobs.test.steps)).toContain("qemu-user libc6-arm64-cross");
    expect(runs).toContain("scripts/kind-e2e.sh");
  });

  test("set up the Node.js version engines names", () => {
    const versions = workflows.flatMap((workflow) =>
      [...workflow.text.matchAll(/node-version: "([\d.]+)"/g)].map((match) => match[1]),
    );
    expect(versions.length).toBeGreaterThan(0);
    for (const version of versions) expect(`${version}.0`).toBe(minimumNode());
  });
});

describe("Node.js", () => {
  test("every locked dependency accepts the engines minimum, so npm ci warns of no engine", () => {
    const refusing = Object.entries(lockPackages)
      .filter(([, entry]) => entry.engines?.node !== undefined)
      .filter(([, entry]) => !Bun.semver.satisfies(minimumNode(), entry.engines?.node ?? ""))
      .map(([path, entry]) => `${path} (${entry.engines?.node})`);
    expect(refusing).toEqual([]);
  });

  test("the engines minimum is the strictest a dependency asks for", () => {
    // Pinned from below too: a newer minimum than any dependency needs turns users away.
    const [major, minor] = minimumNode().split(".").map(Number);
    const lower = `${major}.${(minor ?? 0) - 1}.0`;
    const refusing = Object.values(lockPackages).filter(
      (entry) =>
        entry.engines?.node !== undefined && !Bun.semver.satisfies(lower, entry.engines.node),
    );
    expect(refusing.length).toBeGreaterThan(0);
  });
});

describe("Bun runtimes for make dist", () => {
  test("are the glibc builds package-lock.json pins, at the compiler's version", () => {
    for (const target of Object.keys(RELEASE_TARGETS)) {
      if (!isReleaseTarget(target)) throw new Error(target);
      const runtime = pinnedRuntime(lock, target);
      expect(runtime.version).toBe(packageJson.devDependencies.bun);
      expect(runtime.integrity).toMatch(/^sha512-/);
    }
    expect(RELEASE_TARGETS["linux-arm64"]).toBe("@oven/bun-linux-aarch64");
  });

  test("the shipped x86-64 binary embeds the baseline runtime, which needs no AVX2", () => {
    expect(RELEASE_TARGETS["linux-x64"]).toBe("@oven/bun-linux-x64-baseline");
    expect(BUN_TARGETS["linux-x64"]).toBe("bun-linux-x64-baseline");
    // The modern build is only for make bench's comparison.
    expect(RELEASE_TARGETS["linux-x64-avx2"]).toBe("@oven/bun-linux-x64");
  });

  test("refuse a lock file whose runtime and compiler versions differ", () => {
    const skewed = structuredClone(lock) as {
      packages: Record<string, { version: string }>;
    };
    const entry = skewed.packages["node_modules/@oven/bun-linux-aarch64"];
    if (entry) entry.version = "0.0.1";
    expect(() => pinnedRuntime(skewed, "linux-arm64")).toThrow(/run npm install/);
  });

  test("refuse a musl build", () => {
    const musl = structuredClone(lock) as { packages: Record<string, { libc?: string[] }> };
    const entry = musl.packages["node_modules/@oven/bun-linux-x64-baseline"];
    if (entry) entry.libc = ["musl"];
    expect(() => pinnedRuntime(musl, "linux-x64")).toThrow(/glibc/);
  });

  test("integrity is npm's sha512 in base64", () => {
    expect(integrityOf(new TextEncoder().encode("abc"))).toBe(
      "sha512-3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw==",
    );
  });
});
