import {
  type Document,
  isMap,
  isNode,
  isSeq,
  LineCounter,
  type Node,
  parseAllDocuments,
} from "yaml";
import { errorText } from "../../bounded-text";
import type { PathSegments } from "../../json/path";
import { absentIfMistyped, valueAt } from "../../json/read";
import type { InputProblem, SourceText } from "./inputs";
import { positionOf, type SourcePosition } from "./line-map";
import { type DocumentText, documentTexts } from "./yaml-stream";

/** One Kubernetes object of the input: a document, or an item of a List document. */
export interface SourceObject {
  readonly file: string;
  readonly value: unknown;
  /** Its own, or for an item of a typed list (`CocoonSetList`) that names none, the list's. */
  readonly apiVersion: unknown;
  readonly kind: unknown;
  readonly positionOf: (segments: PathSegments) => SourcePosition;
}

interface SyntaxTree {
  readonly document: Document.Parsed | undefined;
  readonly lines: LineCounter;
  readonly lineOffset: number;
}

const LIST_KIND_SUFFIX = "List";

/**
 * The `yaml` package's slower syntax tree is built only for a line number or a syntax error. A
 * document that does not parse ends its text: the documents after it are not checked.
 */
export function parseSource(
  { file, text }: SourceText,
  each: (object: SourceObject) => void,
): InputProblem | undefined {
  for (const document of documentTexts(text)) {
    let value: unknown;
    try {
      value = Bun.YAML.parse(document.text);
    } catch (error) {
      return syntaxProblem(file, document, error);
    }
    let tree: SyntaxTree | undefined;
    const treeOf = () => {
      tree ??= syntaxTreeOf(document);
      return tree;
    };
    for (const object of objectsOf(file, value, treeOf)) each(object);
  }
  return undefined;
}

function syntaxTreeOf({ text, firstLine }: DocumentText): SyntaxTree {
  const lines = new LineCounter();
  // Bun's parser lets a repeated key's last value win: not an error here either.
  const [document] = parseAllDocuments(text, { lineCounter: lines, uniqueKeys: false });
  return { document, lines, lineOffset: firstLine - 1 };
}

function syntaxProblem(file: string, document: DocumentText, bunError: unknown): InputProblem {
  const tree = syntaxTreeOf(document);
  const [error] = tree.document?.errors ?? [];
  if (error) {
    const at = error.linePos?.[0];
    return {
      file,
      line: at === undefined ? document.firstLine : at.line + tree.lineOffset,
      column: at?.col,
      message: plainMessage(error),
    };
  }
  // e.g. too many aliases: a YAML bomb is not a manifest
  const message = errorText(bunError).replace(/^YAML Parse error: /, "");
  return { file, line: document.firstLine, message };
}

function objectsOf(file: string, value: unknown, treeOf: () => SyntaxTree): SourceObject[] {
  if (value === null || value === undefined) return [];
  const locate =
    (itemIndex?: number) =>
    (segments: PathSegments): SourcePosition => {
      const { document, lines, lineOffset } = treeOf();
      const root = document?.contents;
      if (!isNode(root)) return { line: lineOffset + 1, column: 1 };
      const { line, column } = positionOf(itemNode(root, itemIndex) ?? root, segments, lines);
      return { line: line + lineOffset, column };
    };
  const apiVersion = fieldOf(value, "apiVersion");
  const kind = fieldOf(value, "kind");
  const items = fieldOf(value, "items");
  if (!isListKind(kind) || !Array.isArray(items)) {
    return [{ file, value, apiVersion, kind, positionOf: locate() }];
  }
  const elementKind =
    kind === LIST_KIND_SUFFIX ? undefined : kind.slice(0, -LIST_KIND_SUFFIX.length);
  return items.map((item, index) => {
    const namesItsKind = fieldOf(item, "kind") !== undefined;
    return {
      file,
      value: item,
      apiVersion: namesItsKind ? fieldOf(item, "apiVersion") : apiVersion,
      kind: namesItsKind ? fieldOf(item, "kind") : elementKind,
      positionOf: locate(index),
    };
  });
}

function itemNode(root: Node, itemIndex: number | undefined): Node | undefined {
  if (itemIndex === undefined || !isMap(root)) return undefined;
  const items = root.get("items", true);
  if (!isSeq(items)) return undefined;
  const item = items.items[itemIndex];
  return isNode(item) ? item : items;
}

function isListKind(kind: unknown): kind is string {
  return typeof kind === "string" && kind.endsWith(LIST_KIND_SUFFIX);
}

/** A top-level field as sent, `null` included. */
function fieldOf(value: unknown, key: string): unknown {
  return absentIfMistyped(valueAt(value, [key]));
}

/** The parser's message without the excerpt it appends (the position is reported apart). */
function plainMessage(error: Document.Parsed["errors"][number]): string {
  return error.message.replace(/ at line \d+, column \d+:[\s\S]*$/, "");
}
