import {
  agentMode,
  DEFAULT_AGENT_MODE,
  hibernatePolicy,
  snapshotPolicy,
} from "../cocoon/crd-enums";
import { isJsonObject, type JsonObject } from "../json/read";
import { collected, reportFound, violation } from "../violations";
import type { CocoonSetRuleId } from "./catalogue";
import { nameBudgetViolations } from "./cocoonset-names";
import { AGENT_PATH, type AgentFields, decodeCocoonSet } from "./cocoonset-shape";
import { toolboxViolations } from "./cocoonset-toolboxes";
import { resolvedBackend, vmViolations } from "./cocoonset-vm";
import {
  enumViolation,
  isUnset,
  type ReportViolation,
  resolveEnum,
  type Violation,
} from "./violation";

/**
 * Every rule the object breaks, in document order of the checks, reported
 * through `report`. Anything object-shaped is checked field by field, so a
 * mistyped field is reported at its path instead of hiding the rest.
 * `namespace` is where the set lives (it is part of every VM name).
 */
export function checkCocoonSet(
  object: JsonObject,
  namespace: string,
  report: ReportViolation<CocoonSetRuleId>,
): void {
  const set = decodeCocoonSet(object, report);
  if (set.agent) agentViolations(set.agent, report);
  toolboxViolations(set.toolboxes, set.agent && resolvedBackend(set.agent), report);
  for (const policy of [
    enumViolation(
      "set.snapshot-policy",
      ["spec"],
      "snapshotPolicy",
      set.snapshotPolicy,
      snapshotPolicy,
    ),
    enumViolation(
      "set.hibernate-policy",
      ["spec"],
      "hibernatePolicy",
      set.hibernatePolicy,
      hibernatePolicy,
    ),
  ]) {
    reportFound(report, policy);
  }
  nameBudgetViolations(set, namespace, report);
}

/** Every violation checkCocoonSet reports, none left out; undefined when `object` is not a JSON object. */
export function cocoonSetViolations(
  object: unknown,
  namespace: string,
): Violation<CocoonSetRuleId>[] | undefined {
  if (!isJsonObject(object)) return undefined;
  return collected<CocoonSetRuleId>((report) =>
    checkCocoonSet(object, namespace, report),
  ).listed.slice();
}

function agentViolations(agent: AgentFields, report: ReportViolation<CocoonSetRuleId>): void {
  if (isUnset(agent.image)) {
    report("agent.image-required", () =>
      violation(
        "agent.image-required",
        [...AGENT_PATH, "image"],
        'is required; set the agent VM image, an OCI repo[:tag] such as "org/agent:1.0" (or a cloud-image URL in mode "run")',
      ),
    );
  }
  if (agent.replicas !== undefined && agent.replicas < 0) {
    report("agent.replicas-non-negative", () =>
      violation(
        "agent.replicas-non-negative",
        [...AGENT_PATH, "replicas"],
        `must be 0 or more, got ${agent.replicas}; it counts the sub-agents besides the main agent, so 0 runs the main agent alone`,
      ),
    );
  }
  const invalidMode = enumViolation(
    "agent.mode",
    AGENT_PATH,
    "mode",
    agent.mode,
    agentMode,
    DEFAULT_AGENT_MODE,
  );
  reportFound(report, invalidMode);
  const mode = resolveEnum(agentMode, agent.mode, DEFAULT_AGENT_MODE);
  vmViolations({ at: AGENT_PATH, fields: agent, mode, modeDefaulted: isUnset(agent.mode) }, report);
}
