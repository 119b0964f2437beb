/*
 * The install commands in README.md and docs/installation.md name what the
 * release workflow publishes, at package.json's version, so they run as
 * written once that release exists.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import packageJson from "../../package.json";

const REPO = join(import.meta.dir, "../..");
const release = readFileSync(join(REPO, ".github/workflows/release.yml"), "utf8");
const publish = release.slice(release.indexOf("gh release create"));
const chartRepository = parse(release).env.CHART_REPOSITORY as string;
const pages = ["README.md", "docs/installation.md"].map((path) => ({
  path,
  text: readFileSync(join(REPO, path), "utf8"),
}));

/** The shell blocks of a Markdown page. */
function shellBlocks(markdown: string): string {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]).join("\n");
}

describe.each(pages)("$path install commands", ({ text }) => {
  const shell = shellBlocks(text);

  test("install the chart the release pushes, at this version", () => {
    expect(shell).toContain(
      `helm install cocoon-webhook ${chartRepository}/cocoon-webhook --version ${packageJson.version}`,
    );
  });

  test("download release assets of this version that the release publishes", () => {
    const expanded = shell.replaceAll("$v", /^v=(\S+)$/m.exec(shell)?.[1] ?? "$v");
    expect(expanded).toContain(`releases/download/v${packageJson.version}`);
    const assets = [...shell.matchAll(/cocoon-webhook[\w-]*\.yaml/g)].map((match) => match[0]);
    expect(assets).toContain("cocoon-webhook-namespace.yaml");
    for (const asset of assets) expect(publish).toContain(` ${asset} `);
  });

  test("need no standalone kustomize", () => {
    expect(shell).not.toMatch(/^\s*kustomize /m);
  });
});
