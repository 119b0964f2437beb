import { describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { headingAnchors, withoutCodeBlocks } from "../support/markdown";

const REPO = join(import.meta.dir, "../..");

/** README.md and every page under docs/: the documents a reader follows links between. */
function documents(root: string): string[] {
  const docs = join(root, "docs");
  const pages = existsSync(docs)
    ? readdirSync(docs)
        .filter((name) => name.endsWith(".md"))
        .map((name) => join(docs, name))
    : [];
  return [join(root, "README.md"), ...pages];
}

/** Inline links `[text](target)` and images outside code, with their line. */
function relativeLinks(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  withoutCodeBlocks(markdown)
    .split("\n")
    .forEach((text, index) => {
      const prose = text.replace(/`[^`]*`/g, "");
      for (const [, target = ""] of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
        links.push({ target, line: index + 1 });
      }
    });
  return links;
}

/** Every relative link in the documents under `root` whose file or heading does not exist. */
function brokenLinks(root: string): string[] {
  const problems: string[] = [];
  for (const file of documents(root)) {
    const source = relative(root, file);
    for (const { target, line } of relativeLinks(readFileSync(file, "utf8"))) {
      const [pathPart = "", anchor] = target.split("#", 2);
      const path = pathPart === "" ? file : resolve(dirname(file), decodeURIComponent(pathPart));
      const where = `${source}:${line}: ${target}`;
      if (relative(root, path).startsWith("..")) {
        problems.push(`${where}: points outside the repository`);
      } else if (!existsSync(path)) {
        problems.push(`${where}: no such file`);
      } else if (anchor !== undefined) {
        if (!path.endsWith(".md") || statSync(path).isDirectory()) {
          problems.push(`${where}: an anchor into something that is not a Markdown file`);
        } else if (!headingAnchors(readFileSync(path, "utf8")).has(anchor)) {
          problems.push(`${where}: no heading with that anchor in ${relative(root, path)}`);
        }
      }
    }
  }
  return problems;
}

/** Names of documents that are not in the repository; spelled in pieces so this file is clean. */
const FOREIGN_REFERENCES = [`SPEC${".md"}`, `DESIGN${".md"}`, `SPEC ${"§"}`];

function trackedTextFiles(): string[] {
  const listed = Bun.spawnSync(["git", "ls-files", "-z"], { cwd: REPO });
  expect(listed.exitCode).toBe(0);
  return listed.stdout
    .toString()
    .split("\0")
    .filter((path) => path !== "" && existsSync(join(REPO, path)));
}

describe("documentation links", () => {
  test("README.md and docs/ have pages to check", () => {
    const files = documents(REPO);
    expect(files.length).toBeGreaterThan(5);
    expect(
      files.flatMap((file) => relativeLinks(readFileSync(file, "utf8"))).length,
    ).toBeGreaterThan(20);
  });

  test("every relative link points at a file and heading that exist", () => {
    expect(brokenLinks(REPO)).toEqual([]);
  });

  test("a link to a missing file, a missing heading or outside the repository is reported", () => {
    const root = mkdtempSync(join(tmpdir(), "cocoon-links-"));
    try {
      mkdirSync(join(root, "docs"));
      writeFileSync(
        join(root, "README.md"),
        [
          "# Title",
          "## Quick start — `make run`",
          "[ok](docs/page.md#a-heading) [ok](#quick-start--make-run) [ok](docs/)",
          "[gone](docs/missing.md) [bad anchor](docs/page.md#nope) [self](#nowhere)",
          "```",
          "[ignored in code](nothing.md)",
          "```",
          "`[ignored inline](nothing.md)` [web](https://example.com/x.md)",
        ].join("\n"),
      );
      writeFileSync(
        join(root, "docs", "page.md"),
        "# Page\n## A heading\n[up](../../outside.md)\n",
      );
      expect(brokenLinks(root)).toEqual([
        "README.md:4: docs/missing.md: no such file",
        "README.md:4: docs/page.md#nope: no heading with that anchor in docs/page.md",
        "README.md:4: #nowhere: no heading with that anchor in README.md",
        "docs/page.md:3: ../../outside.md: points outside the repository",
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("a self-contained repository", () => {
  test("no tracked text file cites a document that is not in the repository", () => {
    const files = trackedTextFiles();
    expect(files.length).toBeGreaterThan(100);
    const citing: string[] = [];
    for (const path of files) {
      const bytes = readFileSync(join(REPO, path));
      if (bytes.includes(0)) continue; // binary
      const text = bytes.toString("utf8");
      for (const reference of FOREIGN_REFERENCES) {
        if (text.includes(reference)) citing.push(`${path}: ${reference}`);
      }
    }
    expect(citing).toEqual([]);
  });
});
