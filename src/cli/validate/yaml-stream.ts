/**
 * One reading of YAML: every value from Bun's native parser; the `yaml`
 * package only locates. Given a whole stream Bun returns one array, like a
 * single list document, so the stream is cut into documents first.
 */

/** One document of a stream: its text (directives and markers included) and where it starts. */
export interface DocumentText {
  readonly text: string;
  /** The 1-based line of the stream on which `text` starts. */
  readonly firstLine: number;
}

// `---` and `...` at the start of a line, followed by a space or the line's
// end, are document markers wherever they appear (YAML forbids them as
// content there), so cutting at them needs no parser. One pattern finds
// both in the order they come: a stream is cut without holding its cuts.
const MARKER = /^---(?=[ \t\r\n]|$)|^\.\.\.(?=[ \t\r\n]|$)[^\n]*(?:\n|$)/gm;
const NOTHING = /^(?:[ \t]*(?:#.*)?(?:\r?\n|$))*$/;
const DIRECTIVES_ONLY = /^(?:[ \t]*(?:#.*)?(?:\r?\n|$)|%[^\n]*(?:\n|$))*$/;

/** Where the stream is cut, in increasing order: before each `---`, after each `...`, and its end. */
function* cutsOf(stream: string): Generator<number> {
  let last = 0;
  for (const marker of stream.matchAll(MARKER)) {
    const cut = marker[0].startsWith("-") ? marker.index : marker.index + marker[0].length;
    if (cut <= last) continue;
    last = cut;
    yield cut;
  }
  if (stream.length > last) yield stream.length;
}

/** The stream's documents, one at a time: directives go with the next `---`, blank pieces are none. */
export function* documentTexts(stream: string): Generator<DocumentText> {
  const lineAt = lineCounter(stream);
  let directivesStart: number | undefined;
  let start = 0;
  for (const end of cutsOf(stream)) {
    const piece = stream.slice(start, end);
    const from = directivesStart ?? start;
    start = end;
    if (directivesStart === undefined && NOTHING.test(piece)) continue;
    if (end < stream.length && DIRECTIVES_ONLY.test(piece)) {
      directivesStart = from;
      continue;
    }
    directivesStart = undefined;
    yield { text: stream.slice(from, end), firstLine: lineAt(from) };
  }
}

/** The 1-based line of an offset, for offsets asked in increasing order. */
function lineCounter(text: string): (offset: number) => number {
  let line = 1;
  let counted = 0;
  return (offset) => {
    for (
      let next = text.indexOf("\n", counted);
      next >= 0 && next < offset;
      next = text.indexOf("\n", next + 1)
    ) {
      line += 1;
      counted = next + 1;
    }
    return line;
  };
}
