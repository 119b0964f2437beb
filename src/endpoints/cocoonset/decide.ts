import {
  agentMode,
  DEFAULT_AGENT_MODE,
  hibernatePolicy,
  snapshotPolicy,
} from "../../cocoon/crd-enums";
import { COCOONSET_KIND } from "../../cocoon/crd-resources";
import { namespaceOf } from "../../cocoon/namespace";
import { specsSemanticallyEqual } from "../../cocoon/spec-equality";
import type { AdmissionRequest } from "../../contract/admission-request";
import { allowed, skipped, type Verdict } from "../../contract/verdict";
import type { ReportViolation, Violation } from "../../contract/violations";
import { collectViolations, reportFound, violation } from "../../contract/violations";
import { isJsonObject, type JsonObject } from "../../json/read";
import { enumViolation, isUnset, resolveEnum } from "../field-checks";
import { notAnObject, ruleDenial } from "../rule-denial";
import { nameBudgetViolations } from "./name-budget";
import { COCOONSET_RULES, type CocoonSetRuleId } from "./rules";
import { AGENT_PATH, type AgentFields, decodeCocoonSet } from "./shape";
import { toolboxViolations } from "./toolboxes";
import { resolvedBackend, vmViolations } from "./vm";

export const COCOONSET_REASONS = {
  skipped: ["no_change"],
  deny: ["invalid_spec"],
  error: ["decode"],
} as const;

/** In document order; `namespace` is where the set lives (it is part of every VM name). */
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

/** Every violation, none left out, for the CLI; undefined when `object` is not a JSON object. */
export function cocoonSetViolations(
  object: unknown,
  namespace: string,
): Violation<CocoonSetRuleId>[] | undefined {
  if (!isJsonObject(object)) return undefined;
  return collectViolations<CocoonSetRuleId>((report) =>
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
  const { replicas } = agent;
  if (typeof replicas === "number" && replicas < 0) {
    report("agent.replicas-non-negative", () =>
      violation(
        "agent.replicas-non-negative",
        [...AGENT_PATH, "replicas"],
        `must be 0 or more, got ${replicas}; it counts the sub-agents besides the main agent, so 0 runs the main agent alone`,
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

/** An UPDATE that leaves `spec` unchanged is not checked, so a CR that predates a rule can still lose its finalizer. */
export async function validateCocoonSet(
  request: AdmissionRequest,
): Promise<Verdict<typeof COCOONSET_REASONS, CocoonSetRuleId>> {
  const { object, oldObject } = request;
  if (!isJsonObject(object)) return notAnObject(COCOONSET_KIND);
  if (request.operation === "UPDATE" && isJsonObject(oldObject)) {
    if (specsSemanticallyEqual(oldObject.spec, object.spec)) return skipped("no_change");
  }
  const namespace = namespaceOf(object, request.namespace);
  const found = ruleDenial(COCOONSET_RULES, COCOONSET_KIND, (report) =>
    checkCocoonSet(object, namespace, report),
  );
  return found ?? allowed();
}
