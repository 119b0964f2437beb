/** GitHub's heading anchors: lowercase, punctuation dropped, spaces to hyphens. */
export function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The text outside fenced code blocks, line numbers kept (fenced lines become empty). */
export function withoutCodeBlocks(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split("\n")
    .map((line) => {
      const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
      if (fence === undefined && marker) {
        fence = marker;
        return "";
      }
      if (fence !== undefined) {
        if (marker?.startsWith(fence)) fence = undefined;
        return "";
      }
      return line;
    })
    .join("\n");
}

/**
 * The anchors GitHub gives a document's headings, a repeated heading's
 * second and later anchors suffixed `-1`, `-2`, … as GitHub does.
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading = ""] of withoutCodeBlocks(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = githubSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
