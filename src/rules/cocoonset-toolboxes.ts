import { DEFAULT_TOOLBOX_MODE, toolboxMode, type VmBackend } from "../cocoon/crd-enums";
import { formatPath, type PathSegments } from "../json/path";
import { DNS_LABEL_MAX_LENGTH, isDnsLabel } from "../kube/names";
import { reportFound, violation } from "../violations";
import type { CocoonSetRuleId } from "./catalogue";
import type { DecodedToolbox } from "./cocoonset-shape";
import { connTypeViolation, resolvedBackend, vmViolations } from "./cocoonset-vm";
import { quote } from "./json-values";
import { enumViolation, isUnset, type ReportViolation, resolveEnum } from "./violation";

const PURELY_NUMERIC = /^[0-9]+$/;

/** Toolbox names, modes and the per-mode requirements of every toolbox. */
export function toolboxViolations(
  toolboxes: readonly DecodedToolbox[],
  agentBackend: VmBackend | undefined,
  report: ReportViolation<CocoonSetRuleId>,
): void {
  const firstWithName = new Map<string, PathSegments>();
  for (const toolbox of toolboxes) {
    nameViolations(toolbox, firstWithName, report);
    modeViolations(toolbox, agentBackend, report);
  }
}

function nameViolations(
  { at, fields: { name } }: DecodedToolbox,
  earlier: Map<string, PathSegments>,
  report: ReportViolation<CocoonSetRuleId>,
): void {
  const nameAt = (): PathSegments => [...at, "name"];
  if (isUnset(name)) {
    report("toolbox.name-required", () =>
      violation(
        "toolbox.name-required",
        nameAt(),
        'is required; name the toolbox, for example "browser"',
      ),
    );
    return;
  }
  if (PURELY_NUMERIC.test(name)) {
    report("toolbox.name-not-numeric", () =>
      violation(
        "toolbox.name-not-numeric",
        nameAt(),
        `${quote(name)} is purely numeric, and numbers name the agent slots; add a letter, for example "tools-${name}"`,
      ),
    );
  } else if (!isDnsLabel(name)) {
    report("toolbox.name-label", () =>
      violation(
        "toolbox.name-label",
        nameAt(),
        `${quote(name)} is not an RFC 1123 label; use at most ${DNS_LABEL_MAX_LENGTH} lowercase letters, digits and "-", starting and ending with a letter or digit`,
      ),
    );
  }
  const first = earlier.get(name);
  if (first) {
    report("toolbox.name-unique", () =>
      violation(
        "toolbox.name-unique",
        nameAt(),
        `${quote(name)} is already the name of ${formatPath(first)}; toolbox names must be unique within the set`,
      ),
    );
  } else earlier.set(name, at);
}

function modeViolations(
  toolbox: DecodedToolbox,
  agentBackend: VmBackend | undefined,
  report: ReportViolation<CocoonSetRuleId>,
): void {
  const { at, fields } = toolbox;
  const invalidMode = enumViolation(
    "toolbox.mode",
    at,
    "mode",
    fields.mode,
    toolboxMode,
    DEFAULT_TOOLBOX_MODE,
  );
  reportFound(report, invalidMode);
  const mode = resolveEnum(toolboxMode, fields.mode, DEFAULT_TOOLBOX_MODE);
  if (mode === "static") staticToolboxViolations(toolbox, report);
  else if (mode) managedToolboxViolations(toolbox, mode, agentBackend, report);
  else {
    // Unknown mode: only the checks that hold for every mode, no guessing.
    const invalidConnType = connTypeViolation(at, fields.connType);
    reportFound(report, invalidConnType);
  }
}

/** A static toolbox attaches to an external VM: it needs its address, not an image. */
function staticToolboxViolations(
  { at, fields }: DecodedToolbox,
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

function managedToolboxViolations(
  { at, fields }: DecodedToolbox,
  mode: "run" | "clone",
  agentBackend: VmBackend | undefined,
  report: ReportViolation<CocoonSetRuleId>,
): void {
  if (isUnset(fields.image)) {
    report("toolbox.image-required", () =>
      violation(
        "toolbox.image-required",
        [...at, "image"],
        `is required for mode ${quote(mode)}; set the VM image, or use mode "static" for an external VM`,
      ),
    );
  }
  vmViolations({ at, fields, mode, modeDefaulted: isUnset(fields.mode) }, report);
  const backend = resolvedBackend(fields);
  if (backend && agentBackend && backend !== agentBackend) {
    report("toolbox.backend-matches-agent", () =>
      violation(
        "toolbox.backend-matches-agent",
        [...at, "backend"],
        `is ${quote(backend)}${isUnset(fields.backend) ? " (the default)" : ""} but the agent's backend is ${quote(agentBackend)}; every VM of a set runs on the agent's backend, so set ${quote(agentBackend)}`,
      ),
    );
  }
}
