import { MISTYPED, readObject, valueAt } from "../json/read";

/**
 * A v1 Binding places the pod it is named after on `target.name`, a node.
 * `undefined` when the Binding names no node target: the apiserver refuses
 * such a Binding itself (target.name is required, target.kind must be Node).
 * Any other value is returned as sent, for the caller to validate.
 */
export function bindingTargetNode(binding: unknown): unknown {
  const target = readObject(valueAt(binding, ["target"]));
  if (target === undefined || target === MISTYPED) return undefined;
  const { kind, name } = target;
  if (kind !== undefined && kind !== null && kind !== "" && kind !== "Node") return undefined;
  return name === null || name === "" ? undefined : name;
}
