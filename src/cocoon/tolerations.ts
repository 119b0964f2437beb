import { isJsonObject } from "../json/read";
import { COCOON_TOLERATION_KEY } from "./markers";

/**
 * Whether a toleration's key is the cocoon taint key, whatever its operator,
 * value or effect. Entries are judged one by one, so a malformed entry cannot
 * hide a well-formed cocoon toleration beside it. A keyless `operator: Exists`
 * toleration tolerates the cocoon taint too but is deliberately not a marker
 * (docs/behaviour.md, "Known limit").
 */
export function hasCocoonToleration(tolerations: readonly unknown[]): boolean {
  for (let index = 0; index < tolerations.length; index++) {
    const toleration = tolerations[index];
    if (isJsonObject(toleration) && toleration.key === COCOON_TOLERATION_KEY) return true;
  }
  return false;
}
