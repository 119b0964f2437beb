import { cutShort } from "../../bounded-text";
import { COCOON_MARKERS_TEXT, COCOON_TOLERATION_KEY, VM_NODE_TEXT } from "../../cocoon/markers";
import type { Violation } from "../../contract/violations";
import type { RuleId } from "../../endpoints";
import { cocoonSetViolations } from "../../endpoints/cocoonset/decide";
import { hibernationViolations, podNameOf, readHibernation } from "../../endpoints/hibernation";
import {
  describeTrustedOwners,
  includesKind,
  ownerKindText,
  type PodCreators,
  pairedOwners,
} from "../../endpoints/pod-gate/creators";
import {
  podOwnerKinds,
  readNodeKind,
  readPodMarkers,
  requestedNodeName,
} from "../../endpoints/pod-gate/decide";
import { workloadIsCocoon } from "../../endpoints/scale-guard";
import { isJsonObject, type JsonObject, stringAt, valueAt } from "../../json/read";
import { apiGroupOf } from "../../kube/api-resources";
import { HibernationsByPod } from "../hibernation-conflicts";
import type { OwnerIndex } from "./owners";
import type { AuditRuleId } from "./rules";

/** error: the webhook refuses it today; warning: it may (--strict counts it); notice: info. */
export type AuditSeverity = "error" | "warning" | "notice";

interface ObjectIdentity {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

export interface AuditFinding extends ObjectIdentity {
  readonly severity: AuditSeverity;
  readonly path: string;
  readonly message: string;
  readonly rule: RuleId | AuditRuleId;
}

const identityOf = (apiVersion: string, kind: string, object: JsonObject): ObjectIdentity => ({
  apiVersion,
  kind,
  namespace: stringAt(object, ["metadata", "namespace"]) ?? "",
  name: stringAt(object, ["metadata", "name"]) ?? "",
  uid: stringAt(object, ["metadata", "uid"]) ?? "",
});

const fromViolation = (
  identity: ObjectIdentity,
  { rule, path, message }: Violation<RuleId>,
): AuditFinding => ({ ...identity, severity: "error", rule, path, message });

/** Uncapped, unlike the admission answer: every violation, each of them a finding. */
export function cocoonSetFindings(apiVersion: string, set: JsonObject): AuditFinding[] {
  const identity = identityOf(apiVersion, "CocoonSet", set);
  const violations = cocoonSetViolations(set, identity.namespace) ?? [];
  return violations.map((violation) => fromViolation(identity, violation));
}

interface KeptHibernation {
  readonly identity: ObjectIdentity;
  readonly createdAt: string;
  readonly podName: string;
  readonly deletionTimestamp: unknown;
}

/** Each object's own rules at once; the one-per-pod rule at the end, in creation order. */
export class HibernationAudit {
  readonly #byPod = new Map<string, KeptHibernation[]>();

  check(apiVersion: string, item: JsonObject): AuditFinding[] {
    const identity = identityOf(apiVersion, "CocoonHibernation", item);
    const violations = hibernationViolations(item) ?? [];
    const fields = readHibernation(item);
    const podName = fields && podNameOf(fields);
    if (podName !== undefined) {
      const key = `${identity.namespace}/${podName}`;
      const kept = this.#byPod.get(key) ?? [];
      kept.push({
        identity,
        podName,
        deletionTimestamp: valueAt(item, ["metadata", "deletionTimestamp"]),
        createdAt: stringAt(item, ["metadata", "creationTimestamp"]) ?? "",
      });
      this.#byPod.set(key, kept);
    }
    return violations.map((violation) => fromViolation(identity, violation));
  }

  /** One finding per later object, naming the one the webhook names: not one per pair. */
  conflicts(): AuditFinding[] {
    const findings: AuditFinding[] = [];
    const byPod = new HibernationsByPod();
    for (const [key, kept] of this.#byPod) {
      if (kept.length < 2) continue;
      const ordered = kept.toSorted(
        (a, b) =>
          a.createdAt.localeCompare(b.createdAt) || a.identity.name.localeCompare(b.identity.name),
      );
      for (const { identity, podName, deletionTimestamp } of ordered) {
        const metadata = { name: identity.name, deletionTimestamp };
        for (const { violation } of byPod.add(key, podName, metadata, () => "")) {
          findings.push(fromViolation(identity, violation));
        }
      }
    }
    return findings;
  }
}

export function vmNodeNames(nodes: readonly JsonObject[]): string[] {
  return nodes
    .filter((node) => readNodeKind(node) === "vm")
    .map((node) => stringAt(node, ["metadata", "name"]) ?? "");
}

export interface PodContext {
  readonly podCreators: PodCreators;
  readonly vmNodes: ReadonlySet<string>;
  /** The stored owners of the kinds audit lists, to tell a forged owner reference. */
  readonly owners: OwnerIndex;
}

export function podFindings(pod: JsonObject, context: PodContext): AuditFinding[] {
  const identity = identityOf("v1", "Pod", pod);
  const owners = pairedOwners(podOwnerKinds(pod), context.podCreators);
  const creator = `it was created by field manager ${firstManager(pod)} (the requester itself is not stored, so who made it cannot be checked now)`;
  if (readPodMarkers(pod) === "gated") {
    if (owners.length > 0) return forgedOwnerFindings(pod, identity, context);
    return [
      {
        ...identity,
        severity: "error",
        rule: "pod.not-owned",
        path: "metadata.ownerReferences",
        message:
          `the pod carries a cocoon marker (${COCOON_MARKERS_TEXT}) but has no ` +
          `${describeTrustedOwners(context.podCreators)}, so the pod gate refuses it (not_owned); ` +
          `${creator}; VM-backed pods must be managed by their operator: delete it and create it ` +
          "through the owning resource (such as a CocoonSet)",
      },
    ];
  }
  const nodeName = requestedNodeName(pod);
  if (typeof nodeName !== "string" || !context.vmNodes.has(nodeName)) return [];
  const keyless = hasKeylessExistsToleration(pod);
  const explained =
    owners.length > 0
      ? "; it has an owner of a kind POD_CREATORS pairs with a creator, which the pod gate lets place it by spec.nodeName"
      : keyless
        ? "; it has a toleration without a key (operator Exists), so the scheduler may have placed it (a known limit of the pod gate)"
        : "";
  return [
    {
      ...identity,
      severity: owners.length > 0 || keyless ? "warning" : "error",
      rule: "pod.unmarked-on-vm-node",
      path: "spec.nodeName",
      message:
        `the pod carries no cocoon marker (${COCOON_MARKERS_TEXT}) but runs on "${nodeName}", ` +
        `${VM_NODE_TEXT}, where it becomes a VM outside any operator${explained}; ` +
        `${creator}; move it off the VM node, or create it through a CocoonSet`,
    },
  ];
}

function forgedOwnerFindings(
  pod: JsonObject,
  identity: ObjectIdentity,
  context: PodContext,
): AuditFinding[] {
  const references = valueAt(pod, ["metadata", "ownerReferences"]);
  if (!Array.isArray(references)) return [];
  const paired = pairedOwners(podOwnerKinds(pod), context.podCreators);
  const findings: AuditFinding[] = [];
  references.forEach((reference: unknown, index) => {
    if (!isJsonObject(reference)) return;
    const { apiVersion, kind, name, uid } = reference;
    if (typeof apiVersion !== "string" || typeof kind !== "string") return;
    const ownerKind = { group: apiGroupOf(apiVersion), kind };
    if (!includesKind(paired, ownerKind)) return;
    if (context.owners.resolves(ownerKind, identity.namespace, name, uid) !== false) return;
    findings.push({
      ...identity,
      severity: "error",
      rule: "pod.forged-owner",
      path: `metadata.ownerReferences[${index}]`,
      message:
        `the pod carries a cocoon marker (${COCOON_MARKERS_TEXT}) and names ${ownerKindText(ownerKind)} ` +
        `${JSON.stringify(cutShort(String(name)))} (uid ${JSON.stringify(cutShort(String(uid)))}) as its owner, ` +
        `but no ${kind} of that name and uid is stored in namespace "${identity.namespace}": an owner ` +
        "reference is written by the client, so this one was forged or outlived its owner; delete the " +
        `pod and let the ${kind}'s operator create it`,
    });
  });
  return findings;
}

function hasKeylessExistsToleration(pod: JsonObject): boolean {
  const tolerations = valueAt(pod, ["spec", "tolerations"]);
  return (
    Array.isArray(tolerations) &&
    tolerations.some(
      (toleration) =>
        isJsonObject(toleration) &&
        (toleration.key === undefined || toleration.key === "") &&
        toleration.operator === "Exists",
    )
  );
}

/** `"kubectl-create" (Update, 2026-01-02T03:04:05Z)`, the earliest entry. */
function firstManager(pod: JsonObject): string {
  const entries = valueAt(pod, ["metadata", "managedFields"]);
  const managers = (Array.isArray(entries) ? entries : [])
    .filter(isJsonObject)
    .filter((entry) => typeof entry.manager === "string")
    .toSorted((a, b) => String(a.time ?? "").localeCompare(String(b.time ?? "")));
  const [first] = managers;
  if (!first) return "(none recorded in metadata.managedFields)";
  const details = [first.operation, first.time].filter((each) => typeof each === "string");
  return `${JSON.stringify(first.manager)}${details.length ? ` (${details.join(", ")})` : ""}`;
}

export function workloadFindings(kind: string, workload: JsonObject): AuditFinding[] {
  if (!workloadIsCocoon(workload)) return [];
  return [
    {
      ...identityOf("apps/v1", kind, workload),
      severity: "notice",
      rule: "workload.cocoon-scale-guarded",
      path: "spec.template.spec.tolerations",
      message:
        `the pod template tolerates "${COCOON_TOLERATION_KEY}", so the webhook refuses every ` +
        "scale-down of it (scale_down; suspend VMs with a CocoonHibernation instead), and the pod " +
        "gate refuses each new pod of it, which no CocoonSet owns (not_owned); manage VMs through a CocoonSet",
    },
  ];
}
