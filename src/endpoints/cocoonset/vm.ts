import {
  connType,
  DEFAULT_GUEST_OS,
  DEFAULT_VM_BACKEND,
  guestOs,
  vmBackend,
} from "../../cocoon/crd-enums";
import { cloneImageProblem, isCloudImageUrl } from "../../cocoon/image";
import type { ReportViolation, Violation } from "../../contract/violations";
import { reportFound, violation } from "../../contract/violations";
import { quote } from "../../json/describe";
import type { PathSegments } from "../../json/path";
import { enumViolation, isNonEmptyString, resolveEnum } from "../field-checks";
import type { CocoonSetRuleId } from "./rules";
import type { VmOptionFields } from "./shape";

/** The agent, or a run/clone toolbox. */
export interface ManagedVm {
  readonly at: PathSegments;
  readonly fields: VmOptionFields;
  /** `run` or `clone` after defaulting; undefined when the mode field is invalid. */
  readonly mode: string | undefined;
  /** The mode came from the CRD default, not from the object. */
  readonly modeDefaulted: boolean;
}

export function resolvedBackend(fields: VmOptionFields): string | undefined {
  return resolveEnum(vmBackend, fields.backend, DEFAULT_VM_BACKEND);
}

export function vmViolations(vm: ManagedVm, report: ReportViolation<CocoonSetRuleId>): void {
  const { at, fields } = vm;
  reportFound(report, enumViolation("vm.os", at, "os", fields.os, guestOs, DEFAULT_GUEST_OS));
  reportFound(
    report,
    enumViolation("vm.backend", at, "backend", fields.backend, vmBackend, DEFAULT_VM_BACKEND),
  );
  reportFound(report, connTypeViolation(at, fields.connType));
  if (resolvedBackend(fields) === "firecracker") {
    for (const each of firecrackerViolations(vm)) reportFound(report, each);
  }
  reportFound(report, cloneImageViolation(vm));
}

export function connTypeViolation(
  at: PathSegments,
  value: unknown,
): Violation<CocoonSetRuleId> | undefined {
  return enumViolation("vm.conn-type", at, "connType", value, connType);
}

// Firecracker direct-boots a kernel from an OCI image: no UEFI/BIOS firmware
// for Windows, no cloud-image disks, and a restored clone keeps the frozen
// guest MAC and IP, so it would come up on a dead lease.
function firecrackerViolations({
  at,
  fields,
  mode,
  modeDefaulted,
}: ManagedVm): (Violation<CocoonSetRuleId> | undefined)[] {
  const os = resolveEnum(guestOs, fields.os, DEFAULT_GUEST_OS);
  return [
    os === "windows"
      ? violation(
          "firecracker.no-windows",
          [...at, "os"],
          'firecracker cannot boot Windows guests; use backend "cloud-hypervisor" for os "windows"',
        )
      : undefined,
    typeof fields.image === "string" && isCloudImageUrl(fields.image)
      ? violation(
          "firecracker.oci-image",
          [...at, "image"],
          `firecracker needs an OCI image, got the cloud-image URL ${quote(fields.image)}; use an OCI repo[:tag], or backend "cloud-hypervisor" for cloud images`,
        )
      : undefined,
    mode !== undefined && mode !== "run"
      ? violation(
          "firecracker.run-mode",
          [...at, "mode"],
          `firecracker supports only mode "run", but the mode is ${quote(mode)}${modeDefaulted ? " (the default when unset)" : ""}; set mode "run" or use backend "cloud-hypervisor"`,
        )
      : undefined,
  ];
}

function cloneImageViolation({
  at,
  fields,
  mode,
}: ManagedVm): Violation<CocoonSetRuleId> | undefined {
  if (mode !== "clone" || !isNonEmptyString(fields.image)) return undefined;
  const problem = cloneImageProblem(fields.image);
  if (!problem) return undefined;
  return violation(
    "clone.image-reference",
    [...at, "image"],
    `${quote(fields.image)} cannot be cloned: ${problem}`,
  );
}
