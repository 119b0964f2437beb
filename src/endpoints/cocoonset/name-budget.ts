import {
  DERIVED_NAME_LIMIT,
  derivedSetName,
  GENERATED_NAME_PLACEHOLDER,
  GENERATED_NAME_SUFFIX_LENGTH,
  type OverlongNames,
  overlongSlotNames,
  overlongToolboxNames,
} from "../../cocoon/derived-names";
import type { ReportViolation } from "../../contract/violations";
import { violation } from "../../contract/violations";
import { quote } from "../../json/describe";
import { formatPath, type PathSegments } from "../../json/path";
import { isNonEmptyString, isUnset } from "../field-checks";
import type { CocoonSetRuleId } from "./rules";
import { type DecodedCocoonSet, toolboxPath } from "./shape";

/** Slot names are reported at the set's name field (what the user shortens), toolbox names at theirs. */
export function nameBudgetViolations(
  set: DecodedCocoonSet,
  namespace: string,
  report: ReportViolation<CocoonSetRuleId>,
): void {
  const setName = derivedSetName(set.metadata);
  if (setName === undefined) return;
  const generated = isUnset(set.metadata.name);
  const setNameAt: PathSegments = ["metadata", generated ? "generateName" : "name"];
  const setNameField = formatPath(setNameAt);
  const generatedNote = generated
    ? `; "${GENERATED_NAME_PLACEHOLDER}" stands for the ${GENERATED_NAME_SUFFIX_LENGTH} random characters appended to generateName`
    : "";

  const replicas = set.agent?.replicas;
  const slots = typeof replicas === "number" ? Math.max(0, replicas) : 0;
  for (const overlong of overlongSlotNames(namespace, setName, slots)) {
    const advice = [`shorten ${setNameField}`, ...namespaceAdvice(overlong)];
    const { firstMember } = overlong;
    if (typeof firstMember === "number" && firstMember > 0) {
      advice.push(`keep spec.agent.replicas below ${firstMember}`);
    }
    report("set.derived-name-budget", () =>
      violation("set.derived-name-budget", setNameAt, describe(overlong, advice) + generatedNote),
    );
  }

  for (let index = 0; index < set.toolboxes.length; index++) {
    const name = set.toolboxes[index]?.name;
    if (!isNonEmptyString(name)) continue;
    for (const overlong of overlongToolboxNames(namespace, setName, name)) {
      const advice = [
        "shorten the toolbox name",
        `shorten ${setNameField}`,
        ...namespaceAdvice(overlong),
      ];
      report("set.derived-name-budget", () =>
        violation(
          "set.derived-name-budget",
          [...toolboxPath(index), "name"],
          describe(overlong, advice) + generatedNote,
        ),
      );
    }
  }
}

function namespaceAdvice({ kind }: OverlongNames): string[] {
  return kind === "VM" ? ["use a shorter namespace"] : [];
}

function describe({ kind, first, last, count, length }: OverlongNames, advice: string[]): string {
  const names =
    count === 1
      ? `the ${kind} name ${quote(first)}`
      : `${count} ${kind} names, ${quote(first)} … ${quote(last)},`;
  const vmNote =
    kind === "VM" ? " (a VM name is also its snapshot repository and guest hostname)" : "";
  const each = count === 1 ? "" : " each";
  return `derives ${names} of ${length} characters${each}, over the limit of ${DERIVED_NAME_LIMIT}${vmNote}; ${joinAlternatives(advice)}`;
}

function joinAlternatives(advice: readonly string[]): string {
  if (advice.length <= 1) return advice.join("");
  return `${advice.slice(0, -1).join(", ")} or ${advice.at(-1)}`;
}
