import { cutShort } from "../bounded-text";
import { COCOONHIBERNATION_KIND } from "../cocoon/crd-resources";
import {
  COCOON_TOLERATION_KEY,
  hasCocoonToleration,
  hasCocoonTolerationAt,
} from "../cocoon/markers";
import {
  isWorkloadKind,
  isWorkloadResource,
  WORKLOADS,
  type WorkloadKind,
} from "../cocoon/workload";
import type { AdmissionRequest } from "../contract/admission-request";
import {
  type DecisionDeps,
  type EndpointModule,
  FAIL_CLOSED,
  type MatchConditions,
  namespaced,
} from "../contract/endpoint";
import {
  type KubeApi,
  type ReadOutcome,
  readApiserver,
  retryOnceReachable,
} from "../contract/reads";
import { allowed, denied, errored, skipped, type Verdict } from "../contract/verdict";
import { type JsonPath, MISTYPED, readInt, valueAt } from "../json/read";
import type { WorkloadFields } from "../kube/api-resources";
import { cel, condition } from "./cel";
import { RECOVERY_NAMESPACES } from "./recovery-namespaces";

const SCALE_GUARD_REASONS = {
  skipped: ["kind", "decode", "no_parent", "not_cocoon"],
  deny: ["scale_down"],
  error: ["parent_fetch"],
} as const;

type ScaleGuardVerdict = Verdict<typeof SCALE_GUARD_REASONS, never>;

/** `/validate` (UPDATE): neither through `/scale` nor by a direct UPDATE. */
export async function scaleGuard(
  request: AdmissionRequest,
  deps: DecisionDeps,
): Promise<ScaleGuardVerdict> {
  if (request.subResource === "scale") return guardScaleSubresource(request, deps.kube);
  return guardWorkloadUpdate(request);
}

/** A Scale object carries no pod template, so only a scale-down pays for a GET of the parent. */
async function guardScaleSubresource(
  request: AdmissionRequest,
  kube: KubeApi,
): Promise<ScaleGuardVerdict> {
  const resource = request.resource?.resource;
  if (!isWorkloadResource(resource)) return skipped("kind");
  const oldReplicas = readScaleReplicas(request.oldObject);
  const newReplicas = readScaleReplicas(request.object);
  if (oldReplicas === undefined || newReplicas === undefined) return skipped("decode");
  if (newReplicas >= oldReplicas) return allowed();

  const { namespace, name } = request;
  const parent: ReadOutcome<WorkloadFields | undefined> =
    namespace && name
      ? await readApiserver(() => kube.get(WORKLOADS[resource], { namespace, name }))
      : { ok: false, failure: "the request names no namespace/name" };
  const workload = describeWorkload(request, WORKLOADS[resource].kind);
  if (!parent.ok) {
    return errored(
      "parent_fetch",
      `cannot verify parent workload ${workload}, ` +
        `so the scale-down from ${oldReplicas} to ${newReplicas} replicas is ` +
        `refused (fail-closed): ${parent.failure}; ${retryOnceReachable("get", resource)}`,
    );
  }
  if (parent.answer === undefined) return skipped("no_parent");
  // Read as checked: the answer's field check has already found the tolerations a list of objects.
  const tolerations = parent.answer.spec?.template?.spec?.tolerations;
  if (!tolerations || !hasCocoonToleration(tolerations)) return skipped("not_cocoon");
  return scaleDownDenial(workload, oldReplicas, newReplicas);
}

/** Direct UPDATE: the old object's template decides, so dropping the toleration while scaling down does not slip through. */
function guardWorkloadUpdate(request: AdmissionRequest): ScaleGuardVerdict {
  const kind = request.kind?.kind;
  if (!isWorkloadKind(kind)) return skipped("kind");
  const oldReplicas = readWorkloadReplicas(request.oldObject);
  const newReplicas = readWorkloadReplicas(request.object);
  if (oldReplicas === undefined || newReplicas === undefined) return skipped("decode");
  if (!workloadIsCocoon(request.oldObject)) return skipped("not_cocoon");
  if (newReplicas >= oldReplicas) return allowed();
  return scaleDownDenial(describeWorkload(request, kind), oldReplicas, newReplicas);
}

function describeWorkload(request: AdmissionRequest, kind: WorkloadKind): string {
  return `${kind} ${cutShort(request.namespace ?? "")}/${cutShort(request.name ?? "")}`;
}

function scaleDownDenial(
  workload: string,
  oldReplicas: number,
  newReplicas: number,
): ScaleGuardVerdict {
  return denied(
    "scale_down",
    `spec.replicas: scaling down ${workload} from ${oldReplicas} ` +
      `to ${newReplicas} replicas is not allowed: its pod ` +
      `template tolerates "${COCOON_TOLERATION_KEY}", so its pods are cocoon VMs and removing ` +
      `replicas destroys their state; to suspend VMs, create a ${COCOONHIBERNATION_KIND} ` +
      `(spec.desire: Hibernate) for each pod instead`,
  );
}

/** apps/v1 defaults an omitted `spec.replicas` of a Deployment or StatefulSet to 1. */
const DEFAULT_WORKLOAD_REPLICAS = 1;

/** An autoscaling/v1 Scale omits `spec.replicas` when it is 0 (`kubectl scale --replicas=0` sends `spec: {}`). */
const OMITTED_SCALE_REPLICAS = 0;

const REPLICAS: JsonPath = ["spec", "replicas"];
const TEMPLATE_TOLERATIONS: JsonPath = ["spec", "template", "spec", "tolerations"];

export const readWorkloadReplicas = (workload: unknown) =>
  replicasOr(workload, DEFAULT_WORKLOAD_REPLICAS);

export const readScaleReplicas = (scale: unknown) => replicasOr(scale, OMITTED_SCALE_REPLICAS);

/** `undefined` when the count cannot be read. */
function replicasOr(object: unknown, omitted: number): number | undefined {
  const replicas = readInt(valueAt(object, REPLICAS));
  if (replicas === MISTYPED) return undefined;
  return replicas ?? omitted;
}

/** Whether the pod template carries the cocoon toleration (an unreadable one does not); the CEL mirrors it. */
export function workloadIsCocoon(workload: unknown): boolean {
  return hasCocoonTolerationAt(workload, TEMPLATE_TOLERATIONS) === true;
}

/** replicasOr in CEL. */
const replicas = (object: string, omitted: number) => cel`
  (has(${object}.spec) && ${object}.spec != null
  && has(${object}.spec.replicas) && ${object}.spec.replicas != null
  ? ${object}.spec.replicas : ${omitted})
`;

const IS_SCALE = "(has(request.subResource) && request.subResource == 'scale')";

const SCALE_GUARD_CONDITIONS: MatchConditions = {
  comment:
    "Only requests that lower the replica count reach the webhook, so scale-ups and unchanged " +
    "counts (HPA, kubectl scale up, rollouts, label edits) keep working while it is unreachable.",
  conditions: [
    condition(
      "scale-or-cocoon-workload",
      cel`
        ${IS_SCALE}
        || (oldObject != null
        && has(oldObject.spec) && oldObject.spec != null
        && has(oldObject.spec.template) && oldObject.spec.template != null
        && has(oldObject.spec.template.spec) && oldObject.spec.template.spec != null
        && has(oldObject.spec.template.spec.tolerations)
        && oldObject.spec.template.spec.tolerations != null
        && oldObject.spec.template.spec.tolerations.exists(t, t != null
        && has(t.key) && t.key == '${COCOON_TOLERATION_KEY}'))
      `,
      "A Scale carries no pod template, so the webhook judges the parent itself; direct " +
        "updates only of workloads whose old pod template carries the cocoon toleration " +
        "(workloadIsCocoon in src/endpoints/scale-guard.ts, applied to oldObject).",
    ),
    condition(
      "replicas-go-down",
      cel`
        object != null && oldObject != null
        && (${IS_SCALE.slice(1, -1)}
        ? ${replicas("object", OMITTED_SCALE_REPLICAS)}
        < ${replicas("oldObject", OMITTED_SCALE_REPLICAS)}
        : ${replicas("object", DEFAULT_WORKLOAD_REPLICAS)}
        < ${replicas("oldObject", DEFAULT_WORKLOAD_REPLICAS)})
      `,
      "New spec.replicas lower than old, with the webhook's defaults: an omitted count is 0 " +
        "in a Scale (kubectl scale --replicas=0 sends spec: {}) and 1 in a Deployment or " +
        "StatefulSet.",
    ),
  ],
};

export const scaleGuardEndpoint = {
  label: "validate",
  path: "/validate",
  registration: {
    kind: "validating",
    name: "workloads.cocoon-webhook.cocoonstack.io",
    comment: "Scale-down guard for cocoon-tolerated Deployments and StatefulSets.",
    rules: [
      namespaced(
        "apps",
        ["UPDATE"],
        [
          ...Object.keys(WORKLOADS),
          ...Object.keys(WORKLOADS).map((workload) => `${workload}/scale`),
        ],
      ),
    ],
    ...FAIL_CLOSED,
    namespaceSelector: RECOVERY_NAMESPACES,
    matchConditions: SCALE_GUARD_CONDITIONS,
  },
  reads: Object.values(WORKLOADS).map((resource) => ({ verb: "get", resource }) as const),
  reasons: SCALE_GUARD_REASONS,
  remedies: {
    scale_down: `keep the replicas; to suspend the VMs, create a ${COCOONHIBERNATION_KIND} (spec.desire: Hibernate) for each pod`,
    parent_fetch: retryOnceReachable("get", "deployments and statefulsets"),
  },
  decide: (deps: DecisionDeps) => (request) => scaleGuard(request, deps),
} as const satisfies EndpointModule<typeof SCALE_GUARD_REASONS, never, DecisionDeps>;
