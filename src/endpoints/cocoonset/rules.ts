import type { Rule } from "../../contract/endpoint";

/** README.md lists exactly these lines; each is a reason to refuse the spec as `invalid_spec`. */
const RULES = [
  {
    id: "cocoonset.field-types",
    text: "CocoonSet: every field these rules read has the type the CRD declares (object, list, string, whole number); a mistyped field is reported at its path, and every other field of its object is still checked.",
    remedy: "give the field the type the CRD declares",
  },
  {
    id: "agent.image-required",
    text: "CocoonSet: `spec.agent.image` is required.",
    remedy: "set spec.agent.image",
  },
  {
    id: "agent.replicas-non-negative",
    text: "CocoonSet: `spec.agent.replicas` is 0 or more.",
    remedy: "set spec.agent.replicas to 0 or more",
  },
  {
    id: "agent.mode",
    text: "CocoonSet: `spec.agent.mode`, when set, is `clone` or `run` (default `clone`).",
    remedy: "set the agent's mode to clone or run, or leave it out",
  },
  {
    id: "vm.os",
    text: "CocoonSet: `os` of the agent and of each run/clone toolbox, when set, is `linux`, `windows`, `android` or `macos` (default `linux`).",
    remedy: "set os to linux, windows, android or macos, or leave it out",
  },
  {
    id: "vm.backend",
    text: "CocoonSet: `backend` of the agent and of each run/clone toolbox, when set, is `cloud-hypervisor` or `firecracker` (default `cloud-hypervisor`).",
    remedy: "set backend to cloud-hypervisor or firecracker, or leave it out",
  },
  {
    id: "vm.conn-type",
    text: "CocoonSet: `connType` of the agent and of each toolbox, static ones included, when set, is `ssh`, `rdp`, `vnc` or `adb`.",
    remedy: "set connType to ssh, rdp, vnc or adb, or leave it out",
  },
  {
    id: "firecracker.no-windows",
    text: "CocoonSet: firecracker cannot boot Windows guests, so `backend: firecracker` excludes `os: windows`.",
    remedy: "use backend cloud-hypervisor for Windows guests",
  },
  {
    id: "firecracker.oci-image",
    text: "CocoonSet: firecracker needs an OCI image; an image starting with `http://` or `https://` (a cloud-image URL) is rejected.",
    remedy: "give firecracker an OCI image, not an http(s) URL",
  },
  {
    id: "firecracker.run-mode",
    text: "CocoonSet: firecracker supports only mode `run` (clone restores freeze the guest network state); the agent's mode defaults to `clone`, so set it.",
    remedy: "set mode: run, which firecracker needs",
  },
  {
    id: "clone.image-reference",
    text: "CocoonSet: in clone mode the image is a registry-relative `repo[:tag]`: lowercase alphanumeric components joined by `.`, `_`, `__` or runs of `-`, separated by `/`, and a tag matching `[A-Za-z0-9_][A-Za-z0-9._-]{0,127}`; registry hosts with ports and digests are rejected.",
    remedy: "use a registry-relative repo[:tag], without host port or digest",
  },
  {
    id: "toolbox.name-required",
    text: "CocoonSet: every toolbox has a `name`.",
    remedy: "give every toolbox a name",
  },
  {
    id: "toolbox.name-label",
    text: "CocoonSet: a toolbox name is an RFC 1123 label: at most 63 lowercase letters, digits and `-`, starting and ending with a letter or digit.",
    remedy: 'use at most 63 lowercase letters, digits and "-", alphanumeric at both ends',
  },
  {
    id: "toolbox.name-not-numeric",
    text: "CocoonSet: a toolbox name is not purely numeric (numbers name the agent slots).",
    remedy: "use a toolbox name that is not only digits",
  },
  {
    id: "toolbox.name-unique",
    text: "CocoonSet: toolbox names are unique within the set.",
    remedy: "give each toolbox its own name",
  },
  {
    id: "toolbox.mode",
    text: "CocoonSet: a toolbox `mode`, when set, is `run`, `clone` or `static` (default `run`).",
    remedy: "set the toolbox's mode to run, clone or static, or leave it out",
  },
  {
    id: "toolbox.static-target",
    text: "CocoonSet: a static toolbox sets `staticIP` and `staticVMID`; its image and backend are not checked (no local hypervisor).",
    remedy: "set staticIP and staticVMID on a static toolbox",
  },
  {
    id: "toolbox.image-required",
    text: "CocoonSet: a run or clone toolbox has an `image`.",
    remedy: "set an image on every run or clone toolbox",
  },
  {
    id: "toolbox.backend-matches-agent",
    text: "CocoonSet: a run or clone toolbox uses the same backend as the agent, both after defaulting.",
    remedy: "use the agent's backend for the toolbox",
  },
  {
    id: "set.snapshot-policy",
    text: "CocoonSet: `spec.snapshotPolicy`, when set, is `always`, `main-only` or `never`.",
    remedy: "set spec.snapshotPolicy to always, main-only or never, or leave it out",
  },
  {
    id: "set.hibernate-policy",
    text: "CocoonSet: `spec.hibernatePolicy`, when set, is `retain` or `release`.",
    remedy: "set spec.hibernatePolicy to retain or release, or leave it out",
  },
  {
    id: "set.derived-name-budget",
    text: "CocoonSet: every derived pod name (`<set>-<slot>`, `<set>-<toolbox>`) and VM name (`vk-<namespace>-<set>-<slot>`, `vk-<namespace>-<set>-<toolbox>`) is at most 63 characters, for slots 0 … `spec.agent.replicas`; `<set>` is `metadata.name`, or `generateName` plus 5 characters.",
    remedy: "shorten the set's or toolbox's name, or use a shorter namespace",
  },
] as const satisfies readonly Omit<Rule, "reason">[];

export const COCOONSET_RULES = RULES.map((rule) => ({ ...rule, reason: "invalid_spec" as const }));

export type CocoonSetRuleId = (typeof COCOONSET_RULES)[number]["id"];
