import { z } from "zod";
import { hibernationDesire } from "../cocoon/vm-options";
import type { HibernationRuleId } from "./catalogue";
import { describeJson, quote } from "./json-values";
import { anyValue } from "./lenient-decode";
import { isUnset, type Violation, violation } from "./violation";

/** A violation of one of the CocoonHibernation rules. */
export type HibernationViolation = Violation<HibernationRuleId>;

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

export type DecodedHibernation = z.infer<typeof hibernationSchema>;

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

/** The fields the rules read; undefined when `object` is not a JSON object. */
export function decodeHibernation(object: unknown): DecodedHibernation | undefined {
  const decoded = hibernationSchema.safeParse(object);
  return decoded.success ? decoded.data : undefined;
}

/**
 * The rules that need only the object itself: a valid `spec.desire`,
 * and `metadata.name` equal to `spec.podRef.name`. Undefined when `object`
 * is not a JSON object.
 */
export function hibernationViolations(object: unknown): HibernationViolation[] | undefined {
  const hibernation = decodeHibernation(object);
  return hibernation && violationsOf(hibernation);
}

/** `spec.podRef.name`, when it is a non-empty string. */
export function podNameOf({ spec }: DecodedHibernation): string | undefined {
  const name = spec?.podRef?.name;
  return typeof name === "string" && name !== "" ? name : undefined;
}

/** The rules that need only the object itself. */
export function violationsOf(hibernation: DecodedHibernation): HibernationViolation[] {
  return [desireViolation(hibernation), nameViolation(hibernation)].filter(
    (found): found is HibernationViolation => found !== undefined,
  );
}

function desireViolation({ spec }: DecodedHibernation): HibernationViolation | undefined {
  const desire = spec?.desire;
  if (hibernationDesire.safeParse(desire).success) return undefined;
  const got = isUnset(desire) ? "it is missing" : `got ${describeJson(desire)}`;
  return violation(
    "hibernation.desire",
    ["spec", "desire"],
    `must be ${hibernationDesire.options.map((desire) => `"${desire}"`).join(" or ")} (case-sensitive), ${got}`,
  );
}

function nameViolation(hibernation: DecodedHibernation): HibernationViolation | undefined {
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
export function conflictingHibernations(
  podName: string,
  items: readonly unknown[],
): HibernationViolation[] {
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

function conflictViolation(podName: string, existing: ExistingHibernation): HibernationViolation {
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
