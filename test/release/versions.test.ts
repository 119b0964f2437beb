import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
import { isPreRelease, releasedVersions } from "../support/releases";

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

  test("is the top CHANGELOG.md release, or on main the next version's -dev", () => {
    const [latest = ""] = releasedVersions();
    const { version } = packageJson;
    if (!isPreRelease(version)) {
      expect(version).toBe(latest);
      return;
    }
    // Unreleased work on main: a build of it must never call itself a released version.
    const next = /^(\d+\.\d+\.\d+)-dev$/.exec(version)?.[1] ?? "";
    expect(Bun.semver.order(next, latest)).toBe(1);
    expect(readFileSync(repoPath("CHANGELOG.md"), "utf8")).toContain("\n## [Unreleased]\n");
  });

  test.each([
    ["v0.3.0", "0.3.0", "## [0.3.0] - 2027-01-02", 0],
    ["v0.3.0", "0.3.0", "## [Unreleased]", 1],
    ["v0.3.0-dev", "0.3.0-dev", "## [0.3.0-dev] - 2027-01-02", 1],
    ["v0.3.1", "0.3.0", "## [0.3.0] - 2027-01-02", 1],
    ["v0.3.0", "0.3.0", "## [0.3.01] - 2027-01-02", 1],
  ])(
    "the release workflow's first check: tag %s, version %s, %s → exit %d",
    (tag, version, entry, code) => {
      const release = parse(
        workflows.find((workflow) => workflow.name === "release.yml")?.text ?? "",
      );
      const step = (release.jobs.check.steps as { id?: string; run?: string }[]).find(
        (each) => each.id === "version",
      );
      const directory = mkdtempSync(join(tmpdir(), "cocoon-release-check-"));
      try {
        writeFileSync(join(directory, "package.json"), JSON.stringify({ version }));
        writeFileSync(join(directory, "CHANGELOG.md"), `# Changelog\n\n${entry}\n`);
        const output = join(directory, "output");
        const run = Bun.spawnSync(["bash", "-eo", "pipefail", "-c", step?.run ?? "exit 9"], {
          cwd: directory,
          env: { PATH: process.env.PATH ?? "", GITHUB_REF_NAME: tag, GITHUB_OUTPUT: output },
        });
        expect(run.exitCode).toBe(code);
        if (code === 0) expect(readFileSync(output, "utf8")).toBe(`version=${version}\n`);
        else expect(run.stdout.toString()).toStartWith("::error::");
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
  );

  test("the release workflow refuses a tag other than v<version> and pushes <version>", () => {
    const release = workflows.find((workflow) => workflow.name === "release.yml")?.text ?? "";
    expect(release).toContain(`"$\{GITHUB_REF_NAME}" != "v$\{version}"`);
    expect(release).toContain('version="$(node -p \'require("./package.json").version\')"');
    expect(release).toContain(`VERSION: $\{{ needs.check.outputs.version }}`);
    expect(release).toContain(
      `make image PLATFORMS=linux/amd64,linux/arm64 IMAGE_TAG="$\{VERSION}"`,
    );
  });
});

describe("release workflow", () => {
  const release = parse(workflows.find((workflow) => workflow.name === "release.yml")?.text ?? "");

  test("runs on v* tags only", () => {
    expect(release.on).toEqual({ push: { tags: ["v*"] } });
  });

  test("publishes every make dist binary with its checksum, signature and SBOM", () => {
    const targets = /^DIST_TARGETS := (.+)$/m.exec(makefile)?.[1]?.split(" ") ?? [];
    expect(targets.sort()).toEqual(["linux-arm64", "linux-x64"]);
    for (const target of targets) expect(Object.keys(RELEASE_TARGETS)).toContain(target);
    const steps = JSON.stringify(release.jobs.release.steps);
    // make dist writes each binary's SBOM from its own build (npm sbom lists package.json's view).
    expect(steps).toContain('"run":"make dist"');
    expect(steps).not.toContain("npm sbom");
    for (const target of targets) {
      for (const suffix of ["", ".sha256", ".sigstore.json", ".spdx.json"]) {
        expect(steps).toContain(` cocoon-webhook-${target}${suffix} `);
      }
    }
  });

  test("signs the image and every published file keylessly, with provenance and SBOMs", () => {
    const image = JSON.stringify(release.jobs.image.steps);
    expect(image).toContain(`cosign sign --yes \\"$\{IMAGE}@$\{DIGEST}\\"`);
    expect(image).toContain("actions/attest-build-provenance@");
    const steps = JSON.stringify(release.jobs.release.steps);
    expect(steps).toContain("cosign sign-blob --yes --bundle");
    expect(steps).toContain("actions/attest-build-provenance@");
    expect(steps).toContain("actions/attest-sbom@");
    expect(steps).toContain("anchore/sbom-action@");
    for (const job of [release.jobs.image, release.jobs.release]) {
      expect(job.permissions["id-token"]).toBe("write");
      expect(job.permissions.attestations).toBe("write");
    }
  });

  test("attests the pushed chart by its OCI digest, as it does the image", () => {
    const steps = release.jobs.release.steps as { id?: string; uses?: string; with?: object }[];
    const chart = steps.find((step) => step.id === "chart") as { run: string };
    expect(chart.run).toContain(
      `echo "name=$\{CHART_REPOSITORY#oci://}/cocoon-webhook" >> "$GITHUB_OUTPUT"`,
    );
    const attestations = steps.filter((step) =>
      step.uses?.startsWith("actions/attest-build-provenance@"),
    );
    expect(attestations.map((step) => step.with)).toContainEqual({
      "subject-name": `$\{{ steps.chart.outputs.name }}`,
      "subject-digest": `$\{{ steps.chart.outputs.digest }}`,
      "push-to-registry": true,
    });
  });

  test("every cosign verify in the docs and the notes checks the workflow's identity and issuer", () => {
    const text = workflows.find((workflow) => workflow.name === "release.yml")?.text ?? "";
    const pages = [
      "README.md",
      ...readdirSync(repoPath("docs"))
        .filter((name) => name.endsWith(".md"))
        .map((name) => `docs/${name}`),
    ];
    const commands = [text, ...pages.map((page) => readFileSync(repoPath(page), "utf8"))].flatMap(
      (source) =>
        [...source.replaceAll("\\\n", " ").matchAll(/cosign verify(?:-blob)? [^\n]+/g)].map(
          (match) => match[0],
        ),
    );
    // The image, the chart and a file, in the notes and in docs/releases.md.
    expect(commands.length).toBeGreaterThanOrEqual(6);
    expect(
      commands.filter((command) => /charts\/cocoon-webhook@|\$\{chart\}/.test(command)),
    ).toHaveLength(2);
    for (const command of commands) {
      expect(command).toMatch(/--certificate-identity "?\$\{?identity/);
      expect(command).toMatch(/--certificate-oidc-issuer "?\$\{?issuer/);
    }
    const identity = "/.github/workflows/release.yml@refs/tags/v";
    expect(text).toContain(
      `identity="https://github.com/$\{GITHUB_REPOSITORY}${identity}$\{VERSION}"`,
    );
    expect(readFileSync(repoPath("docs/releases.md"), "utf8")).toContain(
      `identity="https://github.com/cocoonstack/cocoon-webhook${identity}$VERSION"`,
    );
  });

  test("records the image digest in the notes, the manifests and the chart", () => {
    const text = workflows.find((workflow) => workflow.name === "release.yml")?.text ?? "";
    expect(release.jobs.release.env.DIGEST).toBe(`$\{{ needs.image.outputs.digest }}`);
    expect(text).toContain(`echo "- Image: \\\`$\{IMAGE}:$\{VERSION}@$\{DIGEST}\\\``);
    expect(text).toContain(`\\n    digest: $\{DIGEST}/`);
    expect(text).toContain(`/  digest: \\"$\{DIGEST}\\"/`);
  });

  test("builds the image for both architectures and may push packages", () => {
    const image = release.jobs.image;
    expect(image.permissions).toMatchObject({ contents: "read", packages: "write" });
    expect(JSON.stringify(image.steps)).toContain("PLATFORMS=linux/amd64,linux/arm64");
    expect(release.jobs.image.needs).toContain("kind");
    expect(release.jobs.release.needs).toContain("image");
  });
});

describe("workflows", () => {
  test("every action is pinned to a full commit SHA, its release in a comment", () => {
    const uses = workflows.flatMap((workflow) =>
      [...workflow.text.matchAll(/uses: (.+)$/gm)].map((match) => match[1] ?? ""),
    );
    expect(uses.length).toBeGreaterThan(10);
    const versions = new Map<string, string>();
    for (const line of uses) {
      const pin = /^([\w.-]+\/[\w./-]+)@([0-9a-f]{40}) # (v\d+\.\d+\.\d+)$/.exec(line);
      expect(pin, line).not.toBeNull();
      const [, action = "", sha = "", version = ""] = pin ?? [];
      expect(versions.get(`${action}@${sha}`) ?? version, line).toBe(version);
      versions.set(`${action}@${sha}`, version);
    }
  });

  test("CI runs make test with the control plane required (it installs qemu for the arm64 checks), and the kind e2e script", () => {
    const ci = parse(workflows.find((workflow) => workflow.name === "ci.yml")?.text ?? "");
    const runs = Object.values(ci.jobs as Record<string, { steps: { run?: string }[] }>).flatMap(
      (job) => job.steps.map((step) => step.run ?? ""),
    );
    expect(ci.jobs.test.steps.at(-1)).toEqual({
      run: "make test",
      env: { REQUIRE_CONTROLPLANE: "1" },
    });
    expect(runs).toContain("scripts/kind-e2e.sh");
    expect(makefile).toMatch(
      /^dist-test: dist\n\tscripts\/debian-packages\.sh \$\(ARM64_PACKAGES\)\n/m,
    );
    expect(makefile).toContain("qemu-user=/usr/bin/qemu-aarch64");
  });

  test("Dependabot watches npm, every Go module, the actions and the Dockerfile", () => {
    const config = parse(readFileSync(repoPath(".github/dependabot.yml"), "utf8"));
    const watched = (config.updates as { "package-ecosystem": string; directory: string }[]).map(
      (update) => `${update["package-ecosystem"]} ${update.directory}`,
    );
    const goModules = Bun.spawnSync(["git", "ls-files", "--", "*go.mod"], { cwd: repoPath() })
      .stdout.toString()
      .split("\n")
      .filter(Boolean)
      .map((path) => `gomod /${path.replace(/\/?go\.mod$/, "")}`);
    expect(goModules.length).toBeGreaterThan(0);
    expect(watched.sort()).toEqual(["npm /", "github-actions /", "docker /", ...goModules].sort());
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
