import type { RuleId } from "../../../src/endpoints";
import { cocoonSet, staticToolbox, toolbox, withToolbox } from "./builders";

export type CocoonSetRuleId = Exclude<RuleId, `hibernation.${string}`>;

export interface CocoonSetCase {
  readonly name: string;
  readonly object: unknown;
  /** `request.namespace`; `default` when omitted. */
  readonly namespace?: string;
}

export interface FailingCocoonSetCase extends CocoonSetCase {
  /** Every path at which this case breaks the rule, in report order. */
  readonly paths: readonly string[];
}

export interface CocoonSetRuleCases {
  readonly failing: readonly FailingCocoonSetCase[];
  /** Whole objects that break no rule at all. */
  readonly passing: readonly CocoonSetCase[];
}

const A = (length: number) => "a".repeat(length);

/**
 * At least one failing and one passing case per CocoonSet rule. The type
 * makes a new catalogue entry without cases a compile error.
 */
export const COCOONSET_CASES: Record<CocoonSetRuleId, CocoonSetRuleCases> = {
  "cocoonset.field-types": {
    failing: [
      {
        name: "spec is a string",
        object: { metadata: { name: "demo" }, spec: "agent" },
        paths: ["spec"],
      },
      {
        name: "image is a number",
        object: cocoonSet({ agent: { image: 5 } }),
        paths: ["spec.agent.image"],
      },
      {
        name: "replicas is fractional",
        object: cocoonSet({ agent: { replicas: 1.5 } }),
        paths: ["spec.agent.replicas"],
      },
      {
        name: "toolboxes is an object",
        object: cocoonSet({ toolboxes: {} }),
        paths: ["spec.toolboxes"],
      },
      {
        name: "a toolbox is a string, another has a numeric name",
        object: cocoonSet({ toolboxes: ["tools", toolbox({ name: 7 })] }),
        paths: ["spec.toolboxes[0]", "spec.toolboxes[1].name"],
      },
      {
        name: "metadata.name is a list",
        object: { metadata: { name: ["demo"] }, spec: { agent: { image: "x" } } },
        paths: ["metadata.name"],
      },
    ],
    passing: [
      { name: "null optional fields read as unset", object: cocoonSet({ agent: { mode: null } }) },
      { name: "toolboxes null", object: cocoonSet({ toolboxes: null }) },
    ],
  },
  "agent.image-required": {
    failing: [
      {
        name: "image missing",
        object: cocoonSet({ agent: { image: undefined } }),
        paths: ["spec.agent.image"],
      },
      {
        name: "image empty",
        object: cocoonSet({ agent: { image: "" } }),
        paths: ["spec.agent.image"],
      },
      {
        name: "no agent at all",
        object: { metadata: { name: "demo" }, spec: {} },
        paths: ["spec.agent.image"],
      },
      {
        name: "no spec at all",
        object: { metadata: { name: "demo" } },
        paths: ["spec.agent.image"],
      },
    ],
    passing: [{ name: "image set", object: cocoonSet() }],
  },
  "agent.replicas-non-negative": {
    failing: [
      {
        name: "replicas -1",
        object: cocoonSet({ agent: { replicas: -1 } }),
        paths: ["spec.agent.replicas"],
      },
    ],
    passing: [
      { name: "replicas 0", object: cocoonSet({ agent: { replicas: 0 } }) },
      { name: "replicas 3", object: cocoonSet({ agent: { replicas: 3 } }) },
      { name: "replicas unset", object: cocoonSet() },
    ],
  },
  "agent.mode": {
    failing: [
      {
        name: "mode fork",
        object: cocoonSet({ agent: { mode: "fork" } }),
        paths: ["spec.agent.mode"],
      },
      {
        name: "mode Clone (case)",
        object: cocoonSet({ agent: { mode: "Clone" } }),
        paths: ["spec.agent.mode"],
      },
      {
        name: "mode static is toolbox-only",
        object: cocoonSet({ agent: { mode: "static" } }),
        paths: ["spec.agent.mode"],
      },
    ],
    passing: [
      { name: "mode clone", object: cocoonSet({ agent: { mode: "clone" } }) },
      { name: "mode run", object: cocoonSet({ agent: { mode: "run" } }) },
    ],
  },
  "vm.os": {
    failing: [
      {
        name: "agent os plan9",
        object: cocoonSet({ agent: { os: "plan9" } }),
        paths: ["spec.agent.os"],
      },
      {
        name: "toolbox os Linux",
        object: withToolbox({ os: "Linux" }),
        paths: ["spec.toolboxes[0].os"],
      },
    ],
    passing: [
      ...["linux", "windows", "android", "macos"].map((os) => ({
        name: `agent os ${os}`,
        object: cocoonSet({ agent: { os } }),
      })),
      {
        name: "static toolbox os is not checked",
        object: cocoonSet({ toolboxes: [staticToolbox({ os: "plan9" })] }),
      },
    ],
  },
  "vm.backend": {
    failing: [
      {
        name: "agent backend qemu",
        object: cocoonSet({ agent: { backend: "qemu" } }),
        paths: ["spec.agent.backend"],
      },
      {
        name: "toolbox backend qemu",
        object: withToolbox({ backend: "qemu" }),
        paths: ["spec.toolboxes[0].backend"],
      },
    ],
    passing: [
      { name: "cloud-hypervisor", object: cocoonSet({ agent: { backend: "cloud-hypervisor" } }) },
      {
        name: "firecracker in run mode",
        object: cocoonSet({ agent: { backend: "firecracker", mode: "run" } }),
      },
      {
        name: "static toolbox backend is not checked",
        object: cocoonSet({ toolboxes: [staticToolbox({ backend: "qemu" })] }),
      },
    ],
  },
  "vm.conn-type": {
    failing: [
      {
        name: "agent telnet",
        object: cocoonSet({ agent: { connType: "telnet" } }),
        paths: ["spec.agent.connType"],
      },
      {
        name: "run toolbox SSH",
        object: withToolbox({ connType: "SSH" }),
        paths: ["spec.toolboxes[0].connType"],
      },
      {
        name: "static toolbox telnet",
        object: cocoonSet({ toolboxes: [staticToolbox({ connType: "telnet" })] }),
        paths: ["spec.toolboxes[0].connType"],
      },
      {
        name: "toolbox with an unknown mode still has its connType checked",
        object: withToolbox({ mode: "mirror", connType: "telnet" }),
        paths: ["spec.toolboxes[0].connType"],
      },
    ],
    passing: [
      ...["ssh", "rdp", "vnc", "adb"].map((connType) => ({
        name: `agent ${connType}`,
        object: cocoonSet({ agent: { connType } }),
      })),
      {
        name: "static toolbox vnc",
        object: cocoonSet({ toolboxes: [staticToolbox({ connType: "vnc" })] }),
      },
    ],
  },
  "firecracker.no-windows": {
    failing: [
      {
        name: "agent firecracker + windows",
        object: cocoonSet({ agent: { backend: "firecracker", mode: "run", os: "windows" } }),
        paths: ["spec.agent.os"],
      },
      {
        name: "toolbox firecracker + windows",
        object: withToolbox(
          { backend: "firecracker", os: "windows" },
          { backend: "firecracker", mode: "run" },
        ),
        paths: ["spec.toolboxes[0].os"],
      },
    ],
    passing: [
      { name: "cloud-hypervisor + windows", object: cocoonSet({ agent: { os: "windows" } }) },
      {
        name: "firecracker + linux",
        object: cocoonSet({ agent: { backend: "firecracker", mode: "run", os: "linux" } }),
      },
    ],
  },
  "firecracker.oci-image": {
    failing: [
      {
        name: "agent https URL",
        object: cocoonSet({
          agent: { backend: "firecracker", mode: "run", image: "https://cloud.example/jammy.img" },
        }),
        paths: ["spec.agent.image"],
      },
      {
        name: "toolbox http URL",
        object: withToolbox(
          { backend: "firecracker", image: "http://cloud.example/jammy.img" },
          { backend: "firecracker", mode: "run" },
        ),
        paths: ["spec.toolboxes[0].image"],
      },
    ],
    passing: [
      {
        name: "cloud-hypervisor boots a URL in run mode",
        object: cocoonSet({ agent: { mode: "run", image: "https://cloud.example/jammy.img" } }),
      },
      {
        name: "firecracker with an OCI image",
        object: cocoonSet({ agent: { backend: "firecracker", mode: "run" } }),
      },
    ],
  },
  "firecracker.run-mode": {
    failing: [
      {
        name: "agent firecracker with mode defaulted to clone",
        object: cocoonSet({ agent: { backend: "firecracker" } }),
        paths: ["spec.agent.mode"],
      },
      {
        name: "toolbox firecracker clone (its own mode)",
        object: withToolbox(
          { backend: "firecracker", mode: "clone" },
          { backend: "firecracker", mode: "run" },
        ),
        paths: ["spec.toolboxes[0].mode"],
      },
    ],
    passing: [
      {
        name: "agent firecracker run",
        object: cocoonSet({ agent: { backend: "firecracker", mode: "run" } }),
      },
      {
        name: "toolbox firecracker with mode defaulted to run",
        object: withToolbox({ backend: "firecracker" }, { backend: "firecracker", mode: "run" }),
      },
    ],
  },
  "clone.image-reference": {
    failing: [
      ...[
        "localhost:5000/org/agent:1.0",
        "org/agent@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "Org/Agent:1.0",
        "https://cloud.example/jammy.img",
        "org//agent",
        "org/agent:",
        "org/agent:-rc",
        `org/agent:${"t".repeat(129)}`,
        "org/-agent",
        "org/agent_",
        "org/a___b",
      ].map((image) => ({
        name: `agent clone (default) ${image.slice(0, 40)}`,
        object: cocoonSet({ agent: { image } }),
        paths: ["spec.agent.image"],
      })),
      {
        name: "toolbox in clone mode with a digest",
        object: withToolbox({ mode: "clone", image: "org/tools@sha256:abc" }),
        paths: ["spec.toolboxes[0].image"],
      },
    ],
    passing: [
      ...[
        "repo",
        "org/repo:tag",
        "a.b_c__d--e/f:1.0-rc_1",
        "docker.io/library/ubuntu:24.04",
        `org/agent:${"t".repeat(128)}`,
      ].map((image) => ({
        name: `agent clone ${image.slice(0, 40)}`,
        object: cocoonSet({ agent: { image } }),
      })),
      {
        name: "run mode takes any reference",
        object: cocoonSet({
          agent: { mode: "run", image: "registry.example:5000/org/agent@sha256:abc" },
        }),
      },
      {
        name: "toolbox run mode (default) takes a registry port",
        object: withToolbox({ image: "registry.example:5000/tools:1" }),
      },
    ],
  },
  "toolbox.name-required": {
    failing: [
      {
        name: "name missing",
        object: withToolbox({ name: undefined }),
        paths: ["spec.toolboxes[0].name"],
      },
      { name: "name empty", object: withToolbox({ name: "" }), paths: ["spec.toolboxes[0].name"] },
      {
        name: "static toolbox without a name",
        object: cocoonSet({ toolboxes: [staticToolbox({ name: null })] }),
        paths: ["spec.toolboxes[0].name"],
      },
    ],
    passing: [{ name: "named", object: withToolbox({ name: "browser" }) }],
  },
  "toolbox.name-label": {
    failing: [
      ...["Browser", "web_tools", "-tools", "tools-", "tools.v1", A(64)].map((name) => ({
        name: `name ${name.slice(0, 20)}`,
        object: cocoonSet({ toolboxes: [toolbox({ name })] }),
        paths: ["spec.toolboxes[0].name"],
      })),
    ],
    passing: [
      ...["b", "web-tools", "x1", "1x", "a--b"].map((name) => ({
        name: `name ${name}`,
        object: withToolbox({ name }),
      })),
    ],
  },
  "toolbox.name-not-numeric": {
    failing: [
      { name: "name 0", object: withToolbox({ name: "0" }), paths: ["spec.toolboxes[0].name"] },
      { name: "name 007", object: withToolbox({ name: "007" }), paths: ["spec.toolboxes[0].name"] },
    ],
    passing: [{ name: "name tools1", object: withToolbox({ name: "tools1" }) }],
  },
  "toolbox.name-unique": {
    failing: [
      {
        name: "the same name three times, across modes",
        object: cocoonSet({
          toolboxes: [
            toolbox({ name: "tb" }),
            staticToolbox({ name: "tb" }),
            toolbox({ name: "tb" }),
          ],
        }),
        paths: ["spec.toolboxes[1].name", "spec.toolboxes[2].name"],
      },
    ],
    passing: [
      {
        name: "distinct names",
        object: cocoonSet({ toolboxes: [toolbox({ name: "a" }), staticToolbox({ name: "b" })] }),
      },
    ],
  },
  "toolbox.mode": {
    failing: [
      {
        name: "mode mirror",
        object: withToolbox({ mode: "mirror" }),
        paths: ["spec.toolboxes[0].mode"],
      },
      {
        name: "mode Static",
        object: withToolbox({ mode: "Static" }),
        paths: ["spec.toolboxes[0].mode"],
      },
    ],
    passing: [
      { name: "mode run", object: withToolbox({ mode: "run" }) },
      { name: "mode clone", object: withToolbox({ mode: "clone" }) },
      { name: "mode static", object: cocoonSet({ toolboxes: [staticToolbox()] }) },
    ],
  },
  "toolbox.static-target": {
    failing: [
      {
        name: "static without IP and VMID",
        object: cocoonSet({ toolboxes: [staticToolbox({ staticIP: undefined, staticVMID: "" })] }),
        paths: ["spec.toolboxes[0].staticIP", "spec.toolboxes[0].staticVMID"],
      },
      {
        name: "static without VMID",
        object: cocoonSet({ toolboxes: [staticToolbox({ staticVMID: undefined })] }),
        paths: ["spec.toolboxes[0].staticVMID"],
      },
    ],
    passing: [
      { name: "static with both, no image", object: cocoonSet({ toolboxes: [staticToolbox()] }) },
      {
        name: "static ignores image grammar and backend",
        object: cocoonSet({
          agent: { backend: "firecracker", mode: "run" },
          toolboxes: [
            staticToolbox({
              image: "https://x.example/a.img",
              backend: "cloud-hypervisor",
              mode: "static",
            }),
          ],
        }),
      },
    ],
  },
  "toolbox.image-required": {
    failing: [
      {
        name: "run toolbox without image",
        object: withToolbox({ image: undefined }),
        paths: ["spec.toolboxes[0].image"],
      },
      {
        name: "clone toolbox with empty image",
        object: withToolbox({ mode: "clone", image: "" }),
        paths: ["spec.toolboxes[0].image"],
      },
    ],
    passing: [{ name: "run toolbox with image", object: withToolbox() }],
  },
  "toolbox.backend-matches-agent": {
    failing: [
      {
        name: "agent firecracker, toolbox defaulted",
        object: withToolbox({}, { backend: "firecracker", mode: "run" }),
        paths: ["spec.toolboxes[0].backend"],
      },
      {
        name: "agent defaulted, toolbox firecracker",
        object: withToolbox({ backend: "firecracker" }),
        paths: ["spec.toolboxes[0].backend"],
      },
    ],
    passing: [
      { name: "both unset resolve to cloud-hypervisor", object: withToolbox() },
      {
        name: "explicit on one side, default on the other",
        object: withToolbox({ backend: "cloud-hypervisor" }),
      },
      {
        name: "both firecracker",
        object: withToolbox({ backend: "firecracker" }, { backend: "firecracker", mode: "run" }),
      },
    ],
  },
  "set.snapshot-policy": {
    failing: [
      {
        name: "sometimes",
        object: cocoonSet({ spec: { snapshotPolicy: "sometimes" } }),
        paths: ["spec.snapshotPolicy"],
      },
      {
        name: "mainOnly",
        object: cocoonSet({ spec: { snapshotPolicy: "mainOnly" } }),
        paths: ["spec.snapshotPolicy"],
      },
    ],
    passing: ["always", "main-only", "never"].map((snapshotPolicy) => ({
      name: snapshotPolicy,
      object: cocoonSet({ spec: { snapshotPolicy } }),
    })),
  },
  "set.hibernate-policy": {
    failing: [
      {
        name: "delete",
        object: cocoonSet({ spec: { hibernatePolicy: "delete" } }),
        paths: ["spec.hibernatePolicy"],
      },
      {
        name: "a number",
        object: cocoonSet({ spec: { hibernatePolicy: 1 } }),
        paths: ["spec.hibernatePolicy"],
      },
    ],
    passing: ["retain", "release"].map((hibernatePolicy) => ({
      name: hibernatePolicy,
      object: cocoonSet({ spec: { hibernatePolicy } }),
    })),
  },
  "set.derived-name-budget": {
    failing: [
      // "vk-default-" + set + "-0": 13 + set characters.
      {
        name: "VM name of slot 0 is 64",
        object: cocoonSet({ name: A(51) }),
        paths: ["metadata.name"],
      },
      {
        name: "generateName + 5 gives a 64-character VM name",
        object: cocoonSet({ generateName: A(46) }),
        paths: ["metadata.generateName"],
      },
      {
        name: "pod and VM names both too long",
        object: cocoonSet({ name: A(62) }),
        paths: ["metadata.name", "metadata.name"],
      },
      {
        name: "only the two-digit slots overflow",
        object: cocoonSet({ name: A(50 - 1), agent: { replicas: 10 } }),
        namespace: "defaultx",
        paths: ["metadata.name"],
      },
      {
        name: "toolbox VM name is 64",
        object: withToolbox({ name: A(48) }),
        paths: ["spec.toolboxes[0].name"],
      },
      {
        name: "static toolboxes have derived names too",
        object: cocoonSet({ toolboxes: [staticToolbox({ name: A(48) })] }),
        paths: ["spec.toolboxes[0].name"],
      },
      {
        name: "the namespace counts",
        object: cocoonSet({ name: A(40) }),
        namespace: A(20),
        paths: ["metadata.name"],
      },
    ],
    passing: [
      { name: "VM name of slot 0 is exactly 63", object: cocoonSet({ name: A(50) }) },
      { name: "generateName + 5 gives exactly 63", object: cocoonSet({ generateName: A(45) }) },
      {
        name: "two-digit slots fit at 63",
        object: cocoonSet({ name: A(49), agent: { replicas: 10 } }),
      },
      { name: "toolbox VM name is exactly 63", object: withToolbox({ name: A(47) }) },
      { name: "no name yet derives nothing", object: cocoonSet({ name: undefined }) },
    ],
  },
};
