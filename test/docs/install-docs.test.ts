/*
 * The install commands in README.md and docs/installation.md start from a
 * checkout; what they take from a release they name through VERSION, the
 * version the release workflow stamps, and only as the workflow publishes it.
 * No page names a release of this project that CHANGELOG.md does not list.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { changelogEntry, releasedVersions } from "../support/releases";

const REPO = join(import.meta.dir, "../..");
const releaseText = readFileSync(join(REPO, ".github/workflows/release.yml"), "utf8");
const release = parse(releaseText);
const publish = releaseText.slice(releaseText.indexOf("gh release create"));
const chartRepository = release.env.CHART_REPOSITORY as string;
const read = (path: string) => ({ path, text: readFileSync(join(REPO, path), "utf8") });
const installPages = ["README.md", "docs/installation.md"].map(read);
const allPages = [
  "README.md",
  ...readdirSync(join(REPO, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
].map(read);

/** The shell blocks of a Markdown page. */
function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
}

const VERSION = String.raw`\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?`;
/** Where a page names one release of this project: tags, image tags, chart versions, pins. */
const RELEASE_MENTIONS = [
  `cocoon-webhook/releases/download/v(${VERSION})`,
  `cocoon-webhook/(?:blob|tree)/v(${VERSION})`,
  String.raw`cocoon-webhook//manifests/[\w-]+\?ref=v(${VERSION})`,
  `cocoonstack/cocoon-webhook:(${VERSION})`,
  String.raw`charts/cocoon-webhook[^\n]*--version[ =]"?(${VERSION})`,
  String.raw`(?:\b|_)VERSION[=:] *"?(${VERSION})`,
  String.raw`\bnewTag: *"?(${VERSION})`,
  String.raw`\brelease v(${VERSION})`,
].map((pattern) => new RegExp(pattern, "g"));

function releasesNamed(text: string): string[] {
  return RELEASE_MENTIONS.flatMap((pattern) =>
    [...text.matchAll(pattern)].map((match) => match[1] ?? ""),
  );
}

describe("release versions named in the docs", () => {
  test("are found wherever a page names one", () => {
    const sample = [
      "helm install cocoon-webhook oci://ghcr.io/cocoonstack/charts/cocoon-webhook --version 0.9.0 \\",
      "base=https://github.com/cocoonstack/cocoon-webhook/releases/download/v0.9.1",
      "  - https://github.com/cocoonstack/cocoon-webhook//manifests/default?ref=v0.9.2",
      '    newTag: "0.9.3"',
      "VERSION=0.9.4-rc.1",
      '      COCOON_WEBHOOK_VERSION: "0.9.5"',
      "image ghcr.io/cocoonstack/cocoon-webhook:0.9.6, from release v0.9.7,",
      "https://github.com/cocoonstack/cocoon-webhook/blob/v0.9.8/docs/operations.md",
      "VERSION=X.Y.Z, ?ref=vX.Y.Z, uses: actions/checkout@abc # v7.0.1, Kubernetes 1.36.3",
    ].join("\n");
    expect(releasesNamed(sample).sort()).toEqual(
      ["0.9.0", "0.9.1", "0.9.2", "0.9.3", "0.9.4-rc.1", "0.9.5", "0.9.6", "0.9.7", "0.9.8"].sort(),
    );
  });

  test.each(allPages)("$path names only releases CHANGELOG.md lists", ({ text }) => {
    const released = releasedVersions();
    expect(released.length).toBeGreaterThan(0);
    const unreleased = releasesNamed(text).filter((version) => !released.includes(version));
    expect(unreleased).toEqual([]);
  });
});

test.each(allPages)(
  "$path takes the chart only from a release whose entry ships it",
  ({ text }) => {
    const pattern = new RegExp(`charts/cocoon-webhook[^\\n]*--version[ =]"?(${VERSION})`, "g");
    for (const [, version = ""] of text.matchAll(pattern)) {
      expect(changelogEntry(version), `chart ${version}`).toContain("Helm chart");
    }
  },
);

describe.each(installPages)("$path install commands", ({ text }) => {
  const blocks = shellBlocks(text);
  const shell = blocks.join("\n");
  const installs = blocks.filter((block) => /helm install|kubectl apply/.test(block));

  test("start from a checkout: the first install uses the tree's chart or manifests", () => {
    const [first = ""] = installs;
    expect(first).toMatch(/helm install cocoon-webhook charts\/cocoon-webhook |kubectl apply -k /);
    expect(first).not.toContain("oci://");
    expect(first).not.toContain("releases/download");
  });

  test("name a release's chart and files through VERSION, as the release workflow stamps it", () => {
    expect(release.jobs.release.env.VERSION).toBe(`$\{{ needs.check.outputs.version }}`);
    const charts = [
      ...text.matchAll(new RegExp(`${chartRepository}/cocoon-webhook --version ([^\\s\`]+)`, "g")),
    ];
    const downloads = [...text.matchAll(/releases\/download\/([^/\s`]+)/g)];
    expect(charts.length).toBeGreaterThan(0);
    expect(downloads.length).toBeGreaterThan(0);
    for (const [, version] of charts) expect(version).toBe('"$VERSION"');
    for (const [, tag] of downloads) expect(tag).toBe("v$VERSION");
  });

  test("download only assets the release publishes", () => {
    const assets = [...shell.matchAll(/cocoon-webhook[\w-]*\.yaml/g)].map((match) => match[0]);
    for (const asset of assets) expect(publish).toContain(` ${asset} `);
  });

  test("need no standalone kustomize", () => {
    expect(shell).not.toMatch(/^\s*kustomize /m);
  });
});
