import {
  agentMode,
  DEFAULT_AGENT_MODE,
  hibernatePolicy,
  snapshotPolicy,
} from "../cocoon/crd-enums";
import { isJsonObject } from "../json/read";
import { nameBudgetViolations } from "./cocoonset-names";
import { AGENT_PATH, type AgentFields, decodeCocoonSet } from "./cocoonset-shape";
import { toolboxViolations } from "./cocoonset-toolboxes";
import { resolvedBackend, vmViolations } from "./cocoonset-vm";
import {
  type CollectedViolations,
  collectViolations,
  enumViolation,
  isUnset,
  type ReportViolation,
  reportFound,
  resolveEnum,
  type Violation,
  violation,
} from "./violation";

export type { Violation } from "./violation";

/**
 * Every rule the object breaks, in document order of the checks;
 * empty when it is valid. Undefined when `object` is not a JSON object at
 * all: anything object-shaped is checked field by field, so a mistyped field
 * is reported at its path instead of hiding the rest. `namespace` is where
 * the set lives (it is part of every VM name).
 */
export function cocoonSetViolations(object: unknown, namespace: string): Violation[] | undefined {
  return collectCocoonSetViolations(object, namespace)?.listed.slice();
}

/**
 * Like cocoonSetViolations, but only the first `limit` violations are kept
 * in full; the rest are counted per rule. Undefined when `object` is not a
 * JSON object.
 */
export function collectCocoonSetViolations(
  object: unknown,
  namespace: string,
  limit?: number,
): CollectedViolations | undefined {
  if (!isJsonObject(object)) return undefined;
  const collector = collectViolations(limit);
  checkCocoonSet(object, namespace, collector.report);
  return collector.collected();
}

function checkCocoonSet(
  object: Record<string, unknown>,
  namespace: string,
  report: ReportViolation,
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

function agentViolations(agent: AgentFields, report: ReportViolation): void {
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
