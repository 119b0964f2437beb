import {
  type Document,
  isMap,
  isNode,
  isSeq,
  LineCounter,
  type Node,
  parseAllDocuments,
} from "yaml";
import { errorText } from "../errors";
import type { PathSegments } from "../json/path";
import { absentIfMistyped, valueAt } from "../json/read";
import { fastDocumentValues } from "./fast-yaml";
import type { InputProblem, SourceText } from "./inputs";
import { positionOf, type SourcePosition } from "./line-map";

/** One Kubernetes object of the input: a document, or an item of a List document. */
export interface SourceObject {
  readonly file: string;
  readonly value: unknown;
  /** Its own, or for an item of a typed list (`CocoonSetList`) that names none, the list's. */
  readonly apiVersion: unknown;
  readonly kind: unknown;
  /** The 1-based line and column of a field, or of its nearest existing ancestor. */
  readonly positionOf: (segments: PathSegments) => SourcePosition;
}

export type ParsedSource =
  | { readonly objects: SourceObject[]; readonly problem?: undefined }
  | { readonly problem: InputProblem };

/** The `yaml` package's view of a text: nodes with source offsets, for line numbers. */
interface SyntaxTree {
  readonly documents: readonly Document.Parsed[];
  readonly lines: LineCounter;
}

const LIST_KIND_SUFFIX = "List";

/**
 * Every object in a YAML (or JSON: JSON is YAML) text; List documents are
 * expanded. Values come from Bun's native parser when it reads the text
 * unambiguously, and the `yaml` package's syntax tree, which is several
 * times slower, is built only when a line number is asked for or the text
 * does not parse (its errors carry positions).
 */
export function parseSource({ file, text }: SourceText): ParsedSource {
  const fastValues = fastDocumentValues(text);
  if (fastValues) {
    let tree: SyntaxTree | undefined;
    const treeOf = () => {
      tree ??= syntaxTreeOf(text);
      return tree;
    };
    return { objects: fastValues.flatMap((value, index) => objectsOf(file, value, index, treeOf)) };
  }
  const tree = syntaxTreeOf(text);
  const objects: SourceObject[] = [];
  for (const [index, document] of tree.documents.entries()) {
    const [error] = document.errors;
    if (error) {
      const at = error.linePos?.[0];
      return { problem: { file, line: at?.line, column: at?.col, message: plainMessage(error) } };
    }
    let value: unknown;
    try {
      value = document.toJS();
    } catch (error) {
      // e.g. too many aliases: a YAML bomb is not a manifest
      const message = errorText(error);
      const start = isNode(document.contents) ? document.contents.range[0] : 0;
      return { problem: { file, line: tree.lines.linePos(start).line, message } };
    }
    objects.push(...objectsOf(file, value, index, () => tree));
  }
  return { objects };
}

function syntaxTreeOf(text: string): SyntaxTree {
  const lines = new LineCounter();
  // Bun's parser lets a repeated key's last value win; both paths must read a text alike.
  const options = { lineCounter: lines, uniqueKeys: false };
  return { documents: parseAllDocuments(text, options), lines };
}

function objectsOf(
  file: string,
  value: unknown,
  documentIndex: number,
  treeOf: () => SyntaxTree,
): SourceObject[] {
  if (value === null || value === undefined) return [];
  const locate =
    (itemIndex?: number) =>
    (segments: PathSegments): SourcePosition => {
      const { documents, lines } = treeOf();
      const root = documents[documentIndex]?.contents;
      if (!isNode(root)) return { line: 1, column: 1 };
      return positionOf(itemNode(root, itemIndex) ?? root, segments, lines);
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

/** A top-level field as sent (null included); undefined when absent or `value` is not an object. */
function fieldOf(value: unknown, key: string): unknown {
  return absentIfMistyped(valueAt(value, [key]));
}

/** The parser's message without the excerpt it appends (the position is reported apart). */
function plainMessage(error: Document.Parsed["errors"][number]): string {
  return error.message.replace(/ at line \d+, column \d+:[\s\S]*$/, "");
}
