import { describe, expect, test } from "bun:test";
import { MANIFEST_RULES } from "../../src/cli/validate/manifest-rules";
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
import { COCOONSET_SCHEMA, schemaAt } from "../../src/cocoon/crd-schema";
import { RULE_CATALOGUE } from "../../src/endpoints";

/*
 * Read from the embedded schema; the rules compare some values by name
 * (static, run, clone, firecracker, windows), so a schema change that moves
 * them fails here first.
 */
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

  test.each(["os", "backend", "connType"])(
    "a toolbox's %s is the agent's enum, with the agent's default",
    (field) => {
      const agent = schemaAt(COCOONSET_SCHEMA, ["spec", "agent", field]);
      const toolbox = schemaAt(COCOONSET_SCHEMA, ["spec", "toolboxes", "[]", field]);
      expect(toolbox.enum).toEqual(agent.enum);
      expect(toolbox.default).toEqual(agent.default);
    },
  );

  test("desire is case-sensitive", () => {
    expect(hibernationDesire.allows("hibernate")).toBe(false);
    expect(hibernationDesire.allows("Hibernate")).toBe(true);
  });
});

/** The words a rule's text quotes in backticks. */
const quoted = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
const ruleText = (id: string) => RULE_CATALOGUE.find((rule) => rule.id === id)?.text ?? "";

describe("the rule catalogue's prose (README's rule list) states the schema's values", () => {
  test.each([
    ["agent.mode", agentMode, DEFAULT_AGENT_MODE],
    ["toolbox.mode", toolboxMode, DEFAULT_TOOLBOX_MODE],
    ["vm.os", guestOs, DEFAULT_GUEST_OS],
    ["vm.backend", vmBackend, DEFAULT_VM_BACKEND],
    ["vm.conn-type", connType, undefined],
    ["set.snapshot-policy", snapshotPolicy, undefined],
    ["set.hibernate-policy", hibernatePolicy, undefined],
    ["hibernation.desire", hibernationDesire, undefined],
  ])("%s names every option, and the default", (id, allowed, fallback) => {
    const words = quoted(ruleText(id));
    for (const option of allowed.options) expect(words).toContain(option);
    if (fallback) expect(ruleText(id)).toContain(`(default \`${fallback}\`)`);
  });

  test("the offline checks' texts give the schema's limits", () => {
    const text = (id: string) => MANIFEST_RULES.find((rule) => rule.id === id)?.text ?? "";
    const port = schemaAt(COCOONSET_SCHEMA, ["spec", "agent", "probePort"]);
    const snapshotClass = schemaAt(COCOONSET_SCHEMA, ["spec", "snapshotCompatibilityClass"]);
    expect(text("manifest.crd-port")).toContain(`from ${port.minimum} to ${port.maximum}`);
    expect(text("manifest.crd-snapshot-class")).toContain(`at most ${snapshotClass.maxLength}`);
  });
});
