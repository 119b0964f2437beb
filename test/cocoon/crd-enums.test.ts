import { describe, expect, test } from "bun:test";
import {
  agentMode,
  connType,
  DEFAULT_AGENT_MODE,
  DEFAULT_GUEST_OS,
  DEFAULT_TOOLBOX_MODE,
  DEFAULT_VM_BACKEND,
  guestOs,
  hibernatePolicy,
  hibernationDesire,
  snapshotPolicy,
  toolboxMode,
  vmBackend,
} from "../../src/cocoon/crd-enums";

describe("cocoon enums", () => {
  test.each([
    ["agent mode", agentMode.options, ["clone", "run"]],
    ["toolbox mode", toolboxMode.options, ["run", "clone", "static"]],
    ["os", guestOs.options, ["linux", "windows", "android", "macos"]],
    ["backend", vmBackend.options, ["cloud-hypervisor", "firecracker"]],
    ["connType", connType.options, ["ssh", "rdp", "vnc", "adb"]],
    ["snapshotPolicy", snapshotPolicy.options, ["always", "main-only", "never"]],
    ["hibernatePolicy", hibernatePolicy.options, ["retain", "release"]],
    ["desire", hibernationDesire.options, ["Hibernate", "Wake"]],
  ])("%s allows exactly the documented values", (_name, options, expected) => {
    const allowed: readonly string[] = options;
    expect([...allowed]).toEqual(expected);
  });

  test("defaults are the CRD's", () => {
    expect([
      DEFAULT_AGENT_MODE,
      DEFAULT_TOOLBOX_MODE,
      DEFAULT_GUEST_OS,
      DEFAULT_VM_BACKEND,
    ]).toEqual(["clone", "run", "linux", "cloud-hypervisor"]);
  });

  test("desire is case-sensitive", () => {
    expect(hibernationDesire.allows("hibernate")).toBe(false);
    expect(hibernationDesire.allows("Hibernate")).toBe(true);
  });
});
