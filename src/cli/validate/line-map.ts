import { isMap, isNode, isScalar, isSeq, type LineCounter, type Node } from "yaml";
import type { PathSegments } from "../../json/path";

/** An entry at its key, a missing field at its nearest ancestor: `spec.agent.image` at `agent:`. */
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

export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

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
    const pair = node.items.find(({ key }) => isScalar(key) && String(key.value) === segment);
    return pair && { node: pair.value, offset: startOf(pair.key) ?? startOf(pair.value) };
  }
  return undefined;
}

const startOf = (node: unknown) => (isNode(node) ? node.range?.[0] : undefined);
