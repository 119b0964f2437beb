import { z } from "zod";
import type { AdmissionRequest } from "../admission/review";
import { allowed, denied, errored, skipped, type Verdict } from "../admission/verdict";
import { hibernationDesire } from "../cocoon/vm-options";
import { type KubeApi, KubeApiError } from "../kube/port";
import { reasonOf } from "./catalogue";
import { describeJson, quote } from "./json-values";
import { anyValue } from "./lenient-decode";
import {
  collectViolations,
  describeCollected,
  isUnset,
  LISTED_VIOLATIONS_LIMIT,
  type Violation,
  violation,
} from "./violation";

export interface HibernationDeps {
  readonly kube: KubeApi;
}

/** The fields of a new CocoonHibernation the rules read; a mistyped part reads as absent. */
const hibernationSchema = z.object({
  metadata: z.object({ name: anyValue, namespace: anyValue }).optional().catch(undefined),
  spec: z
    .object({
      desire: anyValue,
      podRef: z.object({ name: anyValue }).optional().catch(undefined),
    })
    .optional()
    .catch(undefined),
});

type DecodedHibernation = z.infer<typeof hibernationSchema>;

/** An existing CocoonHibernation from the LIST, as far as the conflict check needs it. */
const existingHibernationSchema = z.object({
  metadata: z
    .object({ name: z.string().optional(), deletionTimestamp: anyValue })
    .optional()
    .catch(undefined),
  spec: z.object({ podRef: z.object({ name: z.string().min(1) }) }),
});

type ExistingHibernation = z.infer<typeof existingHibernationSchema>;

const POD_NAME_PATH = ["spec", "podRef", "name"] as const;

function decodeHibernation(object: unknown): DecodedHibernation | undefined {
  const decoded = hibernationSchema.safeParse(object);
  return decoded.success ? decoded.data : undefined;
}

/**
 * The rules that need only the object itself: a valid `spec.desire`,
 * and `metadata.name` equal to `spec.podRef.name`. Undefined when `object`
 * is not a JSON object.
 */
export function hibernationViolations(object: unknown): Violation[] | undefined {
  const hibernation = decodeHibernation(object);
  return hibernation && violationsOf(hibernation);
}

function podNameOf({ spec }: DecodedHibernation): string | undefined {
  const name = spec?.podRef?.name;
  return typeof name === "string" && name !== "" ? name : undefined;
}

function violationsOf(hibernation: DecodedHibernation): Violation[] {
  return [desireViolation(hibernation), nameViolation(hibernation)].filter(
    (found): found is Violation => found !== undefined,
  );
}

function desireViolation({ spec }: DecodedHibernation): Violation | undefined {
  const desire = spec?.desire;
  if (hibernationDesire.safeParse(desire).success) return undefined;
  const got = isUnset(desire) ? "it is missing" : `got ${describeJson(desire)}`;
  return violation(
    "hibernation.desire",
    ["spec", "desire"],
    `must be ${hibernationDesire.options.map((desire) => `"${desire}"`).join(" or ")} (case-sensitive), ${got}`,
  );
}

function nameViolation(hibernation: DecodedHibernation): Violation | undefined {
  const podName = podNameOf(hibernation);
  if (podName === undefined) {
    return violation(
      "hibernation.name-matches-pod",
      POD_NAME_PATH,
      "is required; name the pod to hibernate or wake, and give the CocoonHibernation the same name",
    );
  }
  const name = hibernation.metadata?.name;
  if (name === podName) return undefined;
  const got = isUnset(name) ? "is not set" : `is ${describeJson(name)}`;
  return violation(
    "hibernation.name-matches-pod",
    ["metadata", "name"],
    `${got} but must equal spec.podRef.name ${quote(podName)}: there is one CocoonHibernation per pod, named after it; name it ${quote(podName)}`,
  );
}

/**
 * Existing CocoonHibernations (from a LIST of the namespace) that already
 * target `podName`, whatever their own names; live ones first.
 */
export function conflictingHibernations(podName: string, items: readonly unknown[]): Violation[] {
  const targeting = items.flatMap((item) => {
    // An item that does not decode names no pod we could compare. The CRD
    // schema makes that a foreign or broken object, and refusing every
    // hibernation in the namespace over it would block users on something
    // only an admin can fix; the name collision (CRs are named after their
    // pod) still stops the plain duplicate.
    const existing = existingHibernationSchema.safeParse(item);
    return existing.success && existing.data.spec.podRef.name === podName ? [existing.data] : [];
  });
  return [
    ...targeting.filter((each) => !isTerminating(each)),
    ...targeting.filter(isTerminating),
  ].map((existing) => conflictViolation(podName, existing));
}

function isTerminating(existing: ExistingHibernation): boolean {
  const deletionTimestamp = existing.metadata?.deletionTimestamp;
  return deletionTimestamp !== undefined && deletionTimestamp !== null;
}

function conflictViolation(podName: string, existing: ExistingHibernation): Violation {
  const existingName = quote(existing.metadata?.name ?? "");
  return isTerminating(existing)
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

/**
 * `/validate-cocoonhibernation`: CREATE only. The LIST fails
 * closed: without it a second CR for the same pod could slip in.
 */
export async function validateHibernation(
  request: AdmissionRequest,
  deps: HibernationDeps,
): Promise<Verdict> {
  if (request.operation !== "CREATE") return skipped("operation");
  const hibernation = decodeHibernation(request.object);
  if (!hibernation) {
    return errored(
      "decode",
      "the request's object is not a JSON object, so it cannot be a CocoonHibernation",
    );
  }
  const violations = violationsOf(hibernation);
  if (violations.length > 0) return deny(violations);

  const podName = podNameOf(hibernation) ?? "";
  const namespace = request.namespace || stringOrEmpty(hibernation.metadata?.namespace);
  // An empty namespace would LIST every namespace and match pods elsewhere.
  if (!namespace) {
    return errored(
      "list",
      `cannot verify that pod ${quote(podName)} has no other CocoonHibernation: the request names no namespace`,
    );
  }
  let items: readonly unknown[];
  try {
    items = await deps.kube.listHibernations(namespace);
  } catch (error) {
    // Anything but an apiserver failure is a bug, left to admit() to report as an internal error.
    if (!(error instanceof KubeApiError)) throw error;
    return errored(
      "list",
      `cannot verify that pod ${quote(podName)} has no other CocoonHibernation: listing ` +
        `CocoonHibernations in namespace ${quote(namespace)} failed: ${error.message}; retry once ` +
        "the webhook can reach the Kubernetes API (check its network path, its RBAC to list " +
        "cocoonhibernations, and APISERVER_TIMEOUT)",
    );
  }
  const conflicts = conflictingHibernations(podName, items);
  return conflicts.length > 0 ? deny(conflicts) : allowed();
}

/** One denial listing the violations up to the cap; the first one's rule gives the reason. */
function deny(violations: readonly Violation[]): Verdict {
  const [first] = violations;
  const reason = first ? reasonOf(first.rule) : "invalid_spec";
  const collector = collectViolations(LISTED_VIOLATIONS_LIMIT);
  for (const each of violations) collector.report(each.rule, () => each);
  return denied(reason, `invalid CocoonHibernation: ${describeCollected(collector.collected())}`);
}

function stringOrEmpty(value: unknown): string {
  return typeof value === "string" ? value : "";
}
