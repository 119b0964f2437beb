import { z } from "zod";
import { isJsonObject } from "../json";
import { COCOON_TOLERATION_KEY } from "./keys";

/**
 * A `tolerations` list, left as it is: entries are judged one by one by
 * hasCocoonToleration, so a malformed entry cannot hide a well-formed cocoon
 * toleration beside it. Not a per-entry zod schema: the gate runs on every
 * pod, and 500 000 entries cost 300-600 ms through zod (blocking every other
 * review) against a few milliseconds for one pass.
 */
export const tolerationsSchema = z.custom<readonly unknown[]>((value) => Array.isArray(value), {
  message: "expected an array",
});

/**
 * Whether a toleration's key is the cocoon taint key, whatever its operator,
 * value or effect. A keyless `operator: Exists` toleration tolerates the cocoon
 * taint too but is deliberately not a marker (docs/behaviour.md, "Known limit").
 */
export function hasCocoonToleration(tolerations: readonly unknown[]): boolean {
  return tolerations.some(
    (toleration) => isJsonObject(toleration) && toleration.key === COCOON_TOLERATION_KEY,
  );
}
