import { hibernationDesire } from "../cocoon/crd-enums";
import { COCOON_GROUP, COCOONHIBERNATION_KIND, COCOONHIBERNATIONS } from "../cocoon/crd-resources";
import { namespaceOf } from "../cocoon/namespace";
import type { AdmissionRequest } from "../contract/admission-request";
import {
  type DecisionDeps,
  type EndpointModule,
  FAIL_CLOSED,
  namespaced,
  type Rule,
} from "../contract/endpoint";
import { readApiserver, retryOnceReachable } from "../contract/reads";
import { allowed, errored, type Verdict } from "../contract/verdict";
import type { ReportViolation, Violation } from "../contract/violations";
import { collectViolations, reportFound, violation } from "../contract/violations";
import { describeJson, quote } from "../json/describe";
import { absentIfMistyped, isJsonObject, type JsonPath, valueAt } from "../json/read";
import { isNonEmptyString, isUnset } from "./field-checks";
import { notAnObject, ruleDenial } from "./rule-denial";

/** README.md lists exactly these lines. */
export const HIBERNATION_RULES = [
  {
    id: "hibernation.desire",
    reason: "invalid_desire",
    text: "CocoonHibernation: `spec.desire` is `Hibernate` or `Wake` (case-sensitive).",
    remedy: "set spec.desire to Hibernate or Wake",
  },
  {
    id: "hibernation.name-matches-pod",
    reason: "name_mismatch",
    text: "CocoonHibernation: `metadata.name` equals `spec.podRef.name` (one per pod, named after it).",
    remedy: "name it after its pod: metadata.name = spec.podRef.name",
  },
  {
    id: "hibernation.one-per-pod",
    reason: "duplicate",
    text: "CocoonHibernation: a pod has at most one; to change what it asks for, flip `spec.desire` of the existing one.",
    remedy: "flip spec.desire of the pod's existing CocoonHibernation instead",
  },
  {
    id: "hibernation.wait-for-terminating",
    reason: "terminating",
    text: "CocoonHibernation: while an earlier one for the same pod is still terminating, a new one is refused; retry after its cleanup.",
    remedy: "retry once the earlier CocoonHibernation is gone",
  },
] as const satisfies readonly Rule[];

export type HibernationRuleId = (typeof HIBERNATION_RULES)[number]["id"];

const HIBERNATION_REASONS = {
  skipped: [],
  deny: ["invalid_desire", "name_mismatch", "duplicate", "terminating"],
  error: ["decode", "list"],
} as const;

type HibernationViolation = Violation<HibernationRuleId>;
type ReportHibernationViolation = ReportViolation<HibernationRuleId>;

const POD_NAME_PATH = ["spec", "podRef", "name"] as const;
const NAME_PATH: JsonPath = ["metadata", "name"];
const DESIRE_PATH: JsonPath = ["spec", "desire"];

/** The fields the rules read, as sent (a part that is not an object reads as absent); undefined for a non-object. */
export function readHibernation(object: unknown) {
  if (!isJsonObject(object)) return undefined;
  return {
    name: absentIfMistyped(valueAt(object, NAME_PATH)),
    desire: absentIfMistyped(valueAt(object, DESIRE_PATH)),
    podName: absentIfMistyped(valueAt(object, POD_NAME_PATH)),
  };
}

type HibernationFields = NonNullable<ReturnType<typeof readHibernation>>;

interface ExistingHibernation {
  readonly name: string | undefined;
  readonly podName: string;
  readonly terminating: boolean;
}

/** The rules that need only the object itself. */
function checkHibernation(
  hibernation: HibernationFields,
  report: ReportHibernationViolation,
): void {
  reportFound(report, desireViolation(hibernation));
  reportFound(report, nameViolation(hibernation));
}

/** Every violation of the object itself, for the CLI; undefined when `object` is not a JSON object. */
export function hibernationViolations(object: unknown): HibernationViolation[] | undefined {
  const hibernation = readHibernation(object);
  if (!hibernation) return undefined;
  return collectViolations<HibernationRuleId>((report) =>
    checkHibernation(hibernation, report),
  ).listed.slice();
}

export function podNameOf({ podName }: HibernationFields): string | undefined {
  return isNonEmptyString(podName) ? podName : undefined;
}

function desireViolation({ desire }: HibernationFields): HibernationViolation | undefined {
  if (hibernationDesire.allows(desire)) return undefined;
  const got = isUnset(desire) ? "it is missing" : `got ${describeJson(desire)}`;
  return violation(
    "hibernation.desire",
    ["spec", "desire"],
    `must be ${hibernationDesire.options.map((desire) => `"${desire}"`).join(" or ")} (case-sensitive), ${got}`,
  );
}

function nameViolation(hibernation: HibernationFields): HibernationViolation | undefined {
  const podName = podNameOf(hibernation);
  if (podName === undefined) {
    return violation(
      "hibernation.name-matches-pod",
      POD_NAME_PATH,
      "is required; name the pod to hibernate or wake, and give the CocoonHibernation the same name",
    );
  }
  const { name } = hibernation;
  if (name === podName) return undefined;
  const got = isUnset(name) ? "is not set" : `is ${describeJson(name)}`;
  return violation(
    "hibernation.name-matches-pod",
    ["metadata", "name"],
    `${got} but must equal spec.podRef.name ${quote(podName)}: there is one CocoonHibernation per pod, named after it; name it ${quote(podName)}`,
  );
}

/** Reports each CocoonHibernation of the namespace's LIST that already targets `podName`; live ones first. */
export function checkNoOtherHibernation(
  podName: string,
  items: readonly unknown[],
  report: ReportHibernationViolation,
): void {
  const targeting = items.flatMap((item) => {
    // An item that names no pod is skipped, not refused over: only an admin could fix it, and
    // the name collision (each is named after its pod) still stops the plain duplicate.
    const existing = readExisting(item);
    return existing && existing.podName === podName ? [existing] : [];
  });
  targeting.sort((a, b) => Number(a.terminating) - Number(b.terminating));
  for (const existing of targeting) reportFound(report, conflictViolation(podName, existing));
}

/** Undefined when the item names no pod: it is not an object, or has no non-empty spec.podRef.name. */
function readExisting(item: unknown): ExistingHibernation | undefined {
  const podName = valueAt(item, POD_NAME_PATH);
  if (!isNonEmptyString(podName)) return undefined;
  // Metadata that is not an object, or whose name is not a string, reads as absent whole.
  const metadata = valueAt(item, ["metadata"]);
  const name = isJsonObject(metadata) ? metadata.name : undefined;
  if (!isJsonObject(metadata) || (name !== undefined && typeof name !== "string")) {
    return { name: undefined, podName, terminating: false };
  }
  const { deletionTimestamp } = metadata;
  return {
    name,
    podName,
    terminating: deletionTimestamp !== undefined && deletionTimestamp !== null,
  };
}

function conflictViolation(podName: string, existing: ExistingHibernation): HibernationViolation {
  const existingName = quote(existing.name ?? "");
  return existing.terminating
    ? violation(
        "hibernation.wait-for-terminating",
        POD_NAME_PATH,
        `CocoonHibernation ${existingName} for pod ${quote(podName)} is still terminating; retry after its cleanup has finished`,
      )
    : violation(
        "hibernation.one-per-pod",
        POD_NAME_PATH,
        `pod ${quote(podName)} already has CocoonHibernation ${existingName}; flip its spec.desire instead of creating another`,
      );
}

type HibernationVerdict = Verdict<typeof HIBERNATION_REASONS, HibernationRuleId>;

/** The LIST fails closed: without it a second CR for the same pod could slip in. */
export async function validateHibernation(
  request: AdmissionRequest,
  deps: DecisionDeps,
): Promise<HibernationVerdict> {
  const hibernation = readHibernation(request.object);
  if (!hibernation) return notAnObject(COCOONHIBERNATION_KIND);
  const broken = ruleDenial(HIBERNATION_RULES, COCOONHIBERNATION_KIND, (report) =>
    checkHibernation(hibernation, report),
  );
  if (broken) return broken;

  const podName = podNameOf(hibernation) ?? "";
  const namespace = namespaceOf(request.object, request.namespace);
  const cannotVerify = `cannot verify that pod ${quote(podName)} has no other CocoonHibernation`;
  // An empty namespace would LIST every namespace and match pods elsewhere.
  if (!namespace) return errored("list", `${cannotVerify}: the request names no namespace`);
  const listed = await readApiserver(() => deps.kube.list(COCOONHIBERNATIONS, namespace));
  if (!listed.ok) {
    return errored(
      "list",
      `${cannotVerify}: listing CocoonHibernations in namespace ${quote(namespace)} failed: ` +
        `${listed.failure}; ${retryOnceReachable("list", COCOONHIBERNATIONS.plural)}`,
    );
  }
  const conflicts = ruleDenial(HIBERNATION_RULES, COCOONHIBERNATION_KIND, (report) =>
    checkNoOtherHibernation(podName, listed.answer, report),
  );
  return conflicts ?? allowed();
}

export const hibernationEndpoint = {
  label: "validate_cocoonhibernation",
  path: "/validate-cocoonhibernation",
  registration: {
    kind: "validating",
    name: "cocoonhibernations.cocoon-webhook.cocoonstack.io",
    comment: "One CocoonHibernation per pod, checked when it is created.",
    rules: [namespaced(COCOON_GROUP, ["CREATE"], [COCOONHIBERNATIONS.plural])],
    ...FAIL_CLOSED,
  },
  reads: [{ verb: "list", resource: COCOONHIBERNATIONS }],
  reasons: HIBERNATION_REASONS,
  rules: HIBERNATION_RULES,
  remedies: {
    invalid_desire: "set spec.desire to Hibernate or Wake",
    name_mismatch: `name the ${COCOONHIBERNATION_KIND} after its pod: metadata.name = spec.podRef.name`,
    duplicate: `flip spec.desire of the pod's existing ${COCOONHIBERNATION_KIND} instead`,
    terminating: `retry once the pod's earlier ${COCOONHIBERNATION_KIND} is gone`,
    decode: `send the ${COCOONHIBERNATION_KIND} as a JSON object`,
    list: retryOnceReachable("list", COCOONHIBERNATIONS.plural),
  },
  decide: (deps: DecisionDeps) => (request) => validateHibernation(request, deps),
} as const satisfies EndpointModule<typeof HIBERNATION_REASONS, HibernationRuleId, DecisionDeps>;
