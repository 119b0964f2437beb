import { z } from "zod";
import { COCOON_TOLERATION_KEY } from "./keys";

/** A toleration as far as any cocoon rule reads it: only its key marks a cocoon pod. */
const tolerationSchema = z.object({ key: z.string().optional() });

export type Toleration = z.infer<typeof tolerationSchema>;

/**
 * A `tolerations` list. Each entry is judged on its own and a malformed one
 * is dropped, so it cannot hide a well-formed cocoon toleration beside it.
 * Walked by hand rather than with a per-entry zod schema: the gate runs on
 * every pod, and 500 000 entries cost 300-600 ms through zod (blocking every
 * other review) against ~50 ms this way.
 */
export const tolerationsSchema = z
  .custom<readonly unknown[]>((value) => Array.isArray(value), { message: "expected an array" })
  .transform((entries): Toleration[] => entries.filter(isToleration));

/** An object whose `key`, if any, is a string; kept as is (never copied: a pod may carry many). */
function isToleration(entry: unknown): entry is Toleration {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return false;
  const key = "key" in entry ? entry.key : undefined;
  return key === undefined || typeof key === "string";
}

/**
 * Whether a toleration's key is the cocoon taint key, whatever its operator,
 * value or effect. A keyless `operator: Exists` toleration tolerates the cocoon
 * taint too but is deliberately not a marker (SPEC §4, "Known limit").
 */
export function hasCocoonToleration(tolerations: readonly Toleration[]): boolean {
  return tolerations.some((toleration) => toleration.key === COCOON_TOLERATION_KEY);
}
