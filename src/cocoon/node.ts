import { isJsonObject } from "../json";
import { COCOON_TOLERATION_KEY } from "./keys";

/**
 * `vm`: the node carries a taint keyed `virtual-kubelet.io/provider` (any
 * value or effect), so pods placed on it become VMs. `unreadable`: `spec` or
 * `spec.taints` has the wrong type, so the question cannot be answered.
 */
export type NodeKind = "vm" | "not_vm" | "unreadable";

export function readNodeKind(node: unknown): NodeKind {
  if (!isJsonObject(node)) return "unreadable";
  const spec = node.spec;
  if (spec === undefined || spec === null) return "not_vm";
  if (!isJsonObject(spec)) return "unreadable";
  const taints = spec.taints;
  if (taints === undefined || taints === null) return "not_vm";
  if (!Array.isArray(taints)) return "unreadable";
  return taints.some((taint) => isJsonObject(taint) && taint.key === COCOON_TOLERATION_KEY)
    ? "vm"
    : "not_vm";
}
