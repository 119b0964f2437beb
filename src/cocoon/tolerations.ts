import { z } from "zod";
import { COCOON_TOLERATION_KEY } from "./keys";

/** A toleration as far as any cocoon rule reads it: only its key marks a cocoon pod. */
const tolerationSchema = z.object({ key: z.string().optional() });

export type Toleration = z.infer<typeof tolerationSchema>;

/**
 * A `tolerations` list. Each entry is decoded on its own and a malformed one
 * is dropped, so it cannot hide a well-formed cocoon toleration beside it.
 */
export const tolerationsSchema = z
  .array(tolerationSchema.optional().catch(undefined))
  .transform((entries) => entries.filter((entry) => entry !== undefined));

/**
 * Whether a toleration's key is the cocoon taint key, whatever its operator,
 * value or effect. A keyless `operator: Exists` toleration tolerates the cocoon
 * taint too but is deliberately not a marker (SPEC §4, "Known limit").
 */
export function hasCocoonToleration(tolerations: readonly Toleration[]): boolean {
  return tolerations.some((toleration) => toleration.key === COCOON_TOLERATION_KEY);
}
