/*
 * Values come from Bun's native parser, which given a whole stream returns one array, like a
 * single list document: so the stream is cut into documents first.
 */

/** `text` keeps its directives and markers; `firstLine` is 1-based. */
export interface DocumentText {
  readonly text: string;
  readonly firstLine: number;
}

// `---` and `...` at the start of a line, followed by a space or the line's end, are document
// markers wherever they appear (YAML forbids them as content there), so cutting needs no parser.
// One pattern finds both in order, so a stream is cut without holding its cuts.
const MARKER = /^---(?=[ \t\r\n]|$)|^\.\.\.(?=[ \t\r\n]|$)[^\n]*(?:\n|$)/gm;
const NOTHING = /^(?:[ \t]*(?:#.*)?(?:\r?\n|$))*$/;
const DIRECTIVES_ONLY = /^(?:[ \t]*(?:#.*)?(?:\r?\n|$)|%[^\n]*(?:\n|$))*$/;

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

/** Directives go with the next `---`; a blank piece is no document. */
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

/** The 1-based line of an offset; offsets must be asked in increasing order. */
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
