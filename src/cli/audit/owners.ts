import { type OwnerKind, ownerKindText, sameOwnerKind } from "../../endpoints/pod-gate/creators";
import { type JsonObject, stringAt } from "../../json/read";

/** The uid of every stored object a pod's owner reference may name, by kind, namespace and name. */
export class OwnerIndex {
  private readonly uids = new Map<string, string>();
  private readonly listed: OwnerKind[] = [];

  private static key(kind: OwnerKind, namespace: string, name: string): string {
    return `${ownerKindText(kind)}\n${namespace}\n${name}`;
  }

  add(kind: OwnerKind, object: JsonObject): void {
    const namespace = stringAt(object, ["metadata", "namespace"]) ?? "";
    const name = stringAt(object, ["metadata", "name"]) ?? "";
    const uid = stringAt(object, ["metadata", "uid"]) ?? "";
    this.uids.set(OwnerIndex.key(kind, namespace, name), uid);
  }

  listedAll(kind: OwnerKind): void {
    this.listed.push(kind);
  }

  /** `undefined` until `kind` was listed to the end: a partial list cannot tell a forged reference. */
  resolves(kind: OwnerKind, namespace: string, name: unknown, uid: unknown): boolean | undefined {
    if (!this.listed.some((listed) => sameOwnerKind(listed, kind))) return undefined;
    if (typeof name !== "string" || typeof uid !== "string" || uid === "") return false;
    return this.uids.get(OwnerIndex.key(kind, namespace, name)) === uid;
  }
}
