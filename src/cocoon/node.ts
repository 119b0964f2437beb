import { isJsonObject, MISTYPED, readList, valueAt } from "../json/read";
import { COCOON_TOLERATION_KEY } from "./markers";

/**
 * `vm`: the node carries a taint keyed `virtual-kubelet.io/provider` (any
 * value or effect), so pods placed on it become VMs. `unreadable`: `spec` or
 * `spec.taints` has the wrong type, so the question cannot be answered.
 */
export type NodeKind = "vm" | "not_vm" | "unreadable";

export function readNodeKind(node: unknown): NodeKind {
  const taints = readList(valueAt(node, ["spec", "taints"]));
  if (taints === MISTYPED) return "unreadable";
  if (taints === undefined) return "not_vm";
  return taints.some((taint) => isJsonObject(taint) && taint.key === COCOON_TOLERATION_KEY)
    ? "vm"
    : "not_vm";
}
