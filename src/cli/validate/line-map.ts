import { isMap, isPair, isScalar, isSeq, type LineCounter, type Node } from "yaml";
import type { PathSegments } from "../../json/path";

/**
 * The source offset of the node `segments` lead to, a map entry at its key;
 * a missing field at its nearest ancestor (`spec.agent.image` at `agent:`).
 */
function offsetOf(root: Node, segments: PathSegments): number {
  let node: unknown = root;
  let offset = startOf(root) ?? 0;
  for (const segment of segments) {
    const step = childOf(node, segment);
    if (!step) break;
    offset = step.offset ?? offset;
    node = step.node;
  }
  return offset;
}

/** A 1-based line and column in a source text. */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

/** The 1-based line and column of `segments` in `root`; see {@link offsetOf}. */
export function positionOf(root: Node, segments: PathSegments, lines: LineCounter): SourcePosition {
  const { line, col } = lines.linePos(offsetOf(root, segments));
  return { line, column: col };
}

interface Step {
  readonly node: unknown;
  readonly offset: number | undefined;
}

function childOf(node: unknown, segment: string | number): Step | undefined {
  if (typeof segment === "number" && isSeq(node)) {
    const item = node.items[segment];
    return item === undefined ? undefined : { node: item, offset: startOf(item) };
  }
  if (typeof segment === "string" && isMap(node)) {
    const pair = node.items.find((each) => isPair(each) && keyName(each.key) === segment);
    return pair && { node: pair.value, offset: startOf(pair.key) ?? startOf(pair.value) };
  }
  return undefined;
}

function keyName(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return typeof key === "string" ? key : undefined;
}

function startOf(node: unknown): number | undefined {
  if (typeof node !== "object" || node === null || !("range" in node)) return undefined;
  const { range } = node;
  return Array.isArray(range) && typeof range[0] === "number" ? range[0] : undefined;
}
