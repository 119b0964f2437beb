/**
 * Bun's native YAML parser is several times faster than the `yaml` package
 * (10 000 CocoonSets: well under a second instead of several), but it returns
 * a multi-document stream as an array, indistinguishable from one document
 * that is a list. So documents are counted from their `---` markers, and the
 * answer is used only when the two agree; anything unusual (directives,
 * `...` end markers, a parse error) is left to the `yaml` package.
 */

const DOCUMENT_START = /^---(?=[ \t\r\n]|$)/gm;
const UNUSUAL_STREAM = /^(?:%|\.\.\.(?:[ \t\r\n]|$))/m;
const BLANK_OR_COMMENT_ONLY = /^(?:[ \t]*(?:#.*)?(?:\r?\n|$))*$/;

/** Each document's value, in order (null for an empty one), or undefined to parse the slow way. */
export function fastDocumentValues(text: string): unknown[] | undefined {
  if (UNUSUAL_STREAM.test(text)) return undefined;
  const count = documentCount(text);
  let parsed: unknown;
  try {
    parsed = Bun.YAML.parse(text);
  } catch {
    return undefined;
  }
  if (count <= 1) return count === 0 ? [] : [parsed];
  return Array.isArray(parsed) && parsed.length === count ? parsed : undefined;
}

function documentCount(text: string): number {
  const markers = [...text.matchAll(DOCUMENT_START)];
  const firstMarker = markers[0]?.index ?? text.length;
  const bareFirstDocument = !BLANK_OR_COMMENT_ONLY.test(text.slice(0, firstMarker));
  return markers.length + (bareFirstDocument ? 1 : 0);
}
