import { DEFAULT_TOOLBOX_MODE, toolboxMode } from "../../cocoon/crd-enums";
import type { ReportViolation } from "../../contract/violations";
import { reportFound, violation } from "../../contract/violations";
import { quote } from "../../json/describe";
import { formatPath, type PathSegments } from "../../json/path";
import { DNS_LABEL_MAX_LENGTH, isDnsLabel } from "../../kube/name-grammar";
import { enumViolation, isNonEmptyString, isUnset, resolveEnum } from "../field-checks";
import type { CocoonSetRuleId } from "./rules";
import { type DecodedToolboxes, type ToolboxFields, toolboxPath } from "./shape";
import { connTypeViolation, resolvedBackend, vmViolations } from "./vm";

const PURELY_NUMERIC = /^[0-9]+$/;

/**
 * A toolbox's path is built only for a violation that is listed, and the violations a million
 * toolboxes break most (no name, no image) have builders that take the index, so counting them
 * allocates nothing.
 */
export function toolboxViolations(
  toolboxes: DecodedToolboxes,
  agentBackend: string | undefined,
  report: ReportViolation<CocoonSetRuleId>,
): void {
  const firstWithName = new Map<string, number>();
  for (let index = 0; index < toolboxes.length; index++) {
    const fields = toolboxes[index];
    if (!fields) continue;
    nameViolations(index, fields, firstWithName, report);
    modeViolations(index, fields, agentBackend, report);
  }
}

const fieldPath = (index: number, field: string): PathSegments => [...toolboxPath(index), field];

const nameRequired = (index: number) =>
  violation(
    "toolbox.name-required",
    fieldPath(index, "name"),
    'is required; name the toolbox, for example "browser"',
  );

function nameViolations(
  index: number,
  fields: ToolboxFields,
  earlier: Map<string, number>,
  report: ReportViolation<CocoonSetRuleId>,
): void {
  const { name } = fields;
  if (!isNonEmptyString(name)) {
    if (isUnset(name)) report("toolbox.name-required", nameRequired, index);
    return;
  }
  if (PURELY_NUMERIC.test(name)) {
    report("toolbox.name-not-numeric", () =>
      violation(
        "toolbox.name-not-numeric",
        fieldPath(index, "name"),
        `${quote(name)} is purely numeric, and numbers name the agent slots; add a letter, for example "tools-${name}"`,
      ),
    );
  } else if (!isDnsLabel(name)) {
    report("toolbox.name-label", () =>
      violation(
        "toolbox.name-label",
        fieldPath(index, "name"),
        `${quote(name)} is not an RFC 1123 label; use at most ${DNS_LABEL_MAX_LENGTH} lowercase letters, digits and "-", starting and ending with a letter or digit`,
      ),
    );
  }
  const first = earlier.get(name);
  if (first !== undefined) {
    report("toolbox.name-unique", () =>
      violation(
        "toolbox.name-unique",
        fieldPath(index, "name"),
        `${quote(name)} is already the name of ${formatPath(toolboxPath(first))}; toolbox names must be unique within the set`,
      ),
    );
  } else earlier.set(name, index);
}

function modeViolations(
  index: number,
  fields: ToolboxFields,
  agentBackend: string | undefined,
  report: ReportViolation<CocoonSetRuleId>,
): void {
  const mode = resolveEnum(toolboxMode, fields.mode, DEFAULT_TOOLBOX_MODE);
  if (mode === "static") staticToolboxViolations(toolboxPath(index), fields, report);
  else if (mode === "run" || mode === "clone")
    managedToolboxViolations(index, fields, mode, agentBackend, report);
  else {
    const at = toolboxPath(index);
    reportFound(
      report,
      enumViolation("toolbox.mode", at, "mode", fields.mode, toolboxMode, DEFAULT_TOOLBOX_MODE),
    );
    // Unknown mode: only the checks that hold for every mode, no guessing.
    reportFound(report, connTypeViolation(at, fields.connType));
  }
}

/** A static toolbox attaches to an external VM: it needs its address. */
function staticToolboxViolations(
  at: PathSegments,
  fields: ToolboxFields,
  report: ReportViolation<CocoonSetRuleId>,
): void {
  const missing = [
    ["staticIP", fields.staticIP, "the IP address of the external VM"],
    ["staticVMID", fields.staticVMID, "the ID of the external VM"],
  ] as const;
  for (const [field, value, meaning] of missing) {
    if (!isUnset(value)) continue;
    report("toolbox.static-target", () =>
      violation(
        "toolbox.static-target",
        [...at, field],
        `is required for mode "static"; set it to ${meaning}, or use mode "run" or "clone"`,
      ),
    );
  }
  const invalidConnType = connTypeViolation(at, fields.connType);
  reportFound(report, invalidConnType);
}

const imageRequired = (mode: "run" | "clone") => (index: number) =>
  violation(
    "toolbox.image-required",
    fieldPath(index, "image"),
    `is required for mode ${quote(mode)}; set the VM image, or use mode "static" for an external VM`,
  );

const IMAGE_REQUIRED = { run: imageRequired("run"), clone: imageRequired("clone") } as const;

function managedToolboxViolations(
  index: number,
  fields: ToolboxFields,
  mode: "run" | "clone",
  agentBackend: string | undefined,
  report: ReportViolation<CocoonSetRuleId>,
): void {
  if (isUnset(fields.image)) {
    report("toolbox.image-required", IMAGE_REQUIRED[mode], index);
  }
  if (setsVmOptions(fields)) {
    const at = toolboxPath(index);
    vmViolations({ at, fields, mode, modeDefaulted: isUnset(fields.mode) }, report);
  }
  const backend = resolvedBackend(fields);
  if (backend && agentBackend && backend !== agentBackend) {
    report("toolbox.backend-matches-agent", () =>
      violation(
        "toolbox.backend-matches-agent",
        fieldPath(index, "backend"),
        `is ${quote(backend)}${isUnset(fields.backend) ? " (the default)" : ""} but the agent's backend is ${quote(agentBackend)}; every VM of a set runs on the agent's backend, so set ${quote(agentBackend)}`,
      ),
    );
  }
}

/** With none of these set no VM rule can be broken, so a million such toolboxes skip them. */
function setsVmOptions(fields: ToolboxFields): boolean {
  return !(
    isUnset(fields.image) &&
    isUnset(fields.os) &&
    isUnset(fields.backend) &&
    isUnset(fields.connType)
  );
}
