import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { Deployment } from "kubernetes-models/apps/v1";
import packageJson from "../../package.json";
import { findObject, render, repoPath } from "../manifests/kustomize";

const dockerfile = readFileSync(repoPath("Dockerfile"), "utf8");
const makefile = readFileSync(repoPath("Makefile"), "utf8");
const stages = dockerfile.split(/\n(?=FROM )/).slice(1);
const [buildStage = "", finalStage = ""] = stages;
const deployment = findObject(render("manifests/default"), "Deployment", "cocoon-webhook");
if (!Deployment.is(deployment)) throw new Error("the Deployment has the wrong apiVersion");
const container = deployment.spec?.template.spec?.containers[0];
const securityContext = deployment.spec?.template.spec?.securityContext;

/** `${NAME}`, a Dockerfile variable reference. */
const ref = (name: string) => `\${${name}}`;

/** The value of a `LABEL key="value"` line in the final stage. */
function label(key: string): string | undefined {
  return new RegExp(`${key.replaceAll(".", "\\.")}="([^"]*)"`).exec(finalStage)?.[1];
}

describe("Dockerfile", () => {
  test("two stages: a build on the builder's platform and the runtime", () => {
    expect(stages).toHaveLength(2);
    expect(buildStage).toMatch(
      /^FROM --platform=\$BUILDPLATFORM node:22-bookworm@sha256:[0-9a-f]{64} AS build\n/,
    );
  });

  test("the frontend and every base image are pinned by digest", () => {
    expect(dockerfile).toMatch(/^# syntax=docker\/dockerfile:1@sha256:[0-9a-f]{64}\n/);
    const images = [...dockerfile.matchAll(/^FROM (?:--platform=\S+ )?(\S+)/gm)].map(
      (match) => match[1],
    );
    expect(images).toHaveLength(2);
    for (const image of images) expect(image).toMatch(/^[\w./-]+:[\w.-]+@sha256:[0-9a-f]{64}$/);
  });

  test("make image sets image and layer times from the commit, without buildx's timed attestations", () => {
    const image = makefile.slice(makefile.indexOf("\nimage:"));
    expect(image).toContain('SOURCE_DATE_EPOCH="$(SOURCE_DATE_EPOCH)" docker buildx build');
    expect(image).toContain('--build-arg SOURCE_DATE_EPOCH="$(SOURCE_DATE_EPOCH)"');
    expect(image).toContain("--provenance=false --sbom=false");
    expect(makefile).toMatch(/^IMAGE_OUTPUT := --output type=registry,rewrite-timestamp=true$/m);
  });

  test("the build installs from the lock file and runs make dist with the stamp passed in", () => {
    expect(buildStage).toContain("RUN npm ci");
    expect(buildStage).toContain(
      `RUN make dist REVISION="${ref("REVISION")}" SOURCE_DATE_EPOCH="${ref("SOURCE_DATE_EPOCH")}"`,
    );
    // A VERSION build argument that is not package.json's fails the build.
    expect(buildStage).toContain(
      `test "\${VERSION}" = "$(node -p 'require("./package.json").version')"`,
    );
  });

  test("maps each Docker TARGETARCH onto the make dist binary of that architecture", () => {
    const mapping = Object.fromEntries(
      [...buildStage.matchAll(/cp dist\/cocoon-webhook-(\S+) \/out\/(\S+)\/cocoon-webhook/g)].map(
        (match) => [match[2], match[1]],
      ),
    );
    expect(mapping).toEqual({ amd64: "linux-x64", arm64: "linux-arm64" });
    const distTargets = /^DIST_TARGETS := (.+)$/m.exec(makefile)?.[1]?.split(" ") ?? [];
    expect(Object.values(mapping).sort()).toEqual(distTargets.sort());
    expect(finalStage).toContain("\nARG TARGETARCH\n");
    expect(finalStage).toContain(
      `\nCOPY --from=build /out/${ref("TARGETARCH")}/cocoon-webhook /cocoon-webhook\n`,
    );
    // make image builds exactly the mapped platforms.
    expect(/^PLATFORMS := (.+)$/m.exec(makefile)?.[1]).toBe("linux/amd64,linux/arm64");
  });

  test("the final stage is distroless, non-root as the Deployment expects, and runs serve", () => {
    expect(finalStage).toMatch(
      /^FROM gcr\.io\/distroless\/base-debian12:nonroot@sha256:[0-9a-f]{64}\n/,
    );
    expect(finalStage).toContain("\nUSER 65532:65532\n");
    expect(securityContext?.runAsUser).toBe(65532);
    expect(securityContext?.runAsNonRoot).toBe(true);
    expect(finalStage).toContain('\nENTRYPOINT ["/cocoon-webhook"]\n');
    expect(container?.command).toBeUndefined();
    expect(finalStage).toContain(`\nCMD ${JSON.stringify(container?.args)}\n`);
    const exposed = /\nEXPOSE ([\d ]+)\n/.exec(finalStage)?.[1]?.split(" ").map(Number);
    expect(exposed).toEqual((container?.ports ?? []).map((port) => port.containerPort));
    expect(finalStage).not.toContain("\nRUN ");
  });

  test("OCI labels: source, license, and version, revision and time from the build arguments", () => {
    expect(label("org.opencontainers.image.source")).toBe(
      "https://github.com/cocoonstack/cocoon-webhook",
    );
    expect(label("org.opencontainers.image.licenses")).toBe(packageJson.license);
    expect(label("org.opencontainers.image.version")).toBe(ref("VERSION"));
    expect(label("org.opencontainers.image.revision")).toBe(ref("REVISION"));
    expect(label("org.opencontainers.image.created")).toBe(ref("BUILD_TIME"));
    for (const argument of ["VERSION", "REVISION", "BUILD_TIME"]) {
      expect(finalStage).toContain(`\nARG ${argument}=`);
    }
  });

  test("make image passes every build argument the Dockerfile reads", () => {
    const image = makefile.slice(makefile.indexOf("\nimage:"), makefile.indexOf("\nkind-e2e:"));
    for (const argument of ["VERSION", "REVISION", "SOURCE_DATE_EPOCH", "BUILD_TIME"]) {
      expect(image).toContain(`--build-arg ${argument}="$(${argument})"`);
    }
    expect(image).toContain('--tag "$(IMAGE):$(IMAGE_TAG)"');
    expect(/^IMAGE := (.+)$/m.exec(makefile)?.[1]).toBe(container?.image?.replace(/:[^:/]+$/, ""));
  });

  test("the build context carries the scripts make dist runs (runtime fetcher, SBOM writer)", () => {
    const ignored = readFileSync(repoPath(".dockerignore"), "utf8").split("\n");
    const dist = makefile.slice(makefile.indexOf("\ndist:"), makefile.indexOf("\ndist-test:"));
    const scripts = [...new Set(dist.match(/scripts\/[\w-]+\.ts/g))];
    expect(scripts.sort()).toEqual(["scripts/bun-runtime.ts", "scripts/sbom.ts"]);
    for (const script of scripts) expect(ignored).toContain(`!${script}`);
    expect(ignored).not.toContain("package.json");
    expect(ignored).not.toContain("src");
  });

  test("the build context carries the CRD schema the binary embeds", () => {
    const ignored = readFileSync(repoPath(".dockerignore"), "utf8").split("\n");
    const source = readFileSync(repoPath("src/cocoon/crd-schema.ts"), "utf8");
    const embedded = [...source.matchAll(/from "(?:\.\.\/)+(manifests\/[\w-]+)\//g)];
    expect(embedded.map((match) => match[1])).toEqual(["manifests/crds", "manifests/crds"]);
    expect(ignored).toContain("!manifests/crds");
  });
});
