/**
 * The enumerated fields of CocoonSet and CocoonHibernation. Each is the one
 * list of allowed values, in the CRD's order; a `DEFAULT_*` is what the CRD
 * fills in when the field is left unset.
 */
export interface CrdEnum<Value extends string> {
  readonly options: readonly Value[];
  /** Whether `value` is one of the options, exactly (values are case-sensitive). */
  allows(value: unknown): value is Value;
}

function crdEnum<const Value extends string>(options: readonly Value[]): CrdEnum<Value> {
  const allowed: ReadonlySet<unknown> = new Set(options);
  return { options, allows: (value): value is Value => allowed.has(value) };
}

/** `spec.agent.mode`: clone restores a snapshot, run boots the image. */
export const agentMode = crdEnum(["clone", "run"]);
export type AgentMode = (typeof agentMode.options)[number];
export const DEFAULT_AGENT_MODE: AgentMode = "clone";

/** `spec.toolboxes[].mode`: static attaches to an externally managed VM. */
export const toolboxMode = crdEnum(["run", "clone", "static"]);
export type ToolboxMode = (typeof toolboxMode.options)[number];
export const DEFAULT_TOOLBOX_MODE: ToolboxMode = "run";

/** Guest operating system (`os`). */
export const guestOs = crdEnum(["linux", "windows", "android", "macos"]);
export type GuestOs = (typeof guestOs.options)[number];
export const DEFAULT_GUEST_OS: GuestOs = "linux";

/** Hypervisor (`backend`). */
export const vmBackend = crdEnum(["cloud-hypervisor", "firecracker"]);
export type VmBackend = (typeof vmBackend.options)[number];
export const DEFAULT_VM_BACKEND: VmBackend = "cloud-hypervisor";

/** Connection protocol (`connType`); no default, vk-cocoon picks one per OS. */
export const connType = crdEnum(["ssh", "rdp", "vnc", "adb"]);

/** `spec.snapshotPolicy`. */
export const snapshotPolicy = crdEnum(["always", "main-only", "never"]);

/** `spec.hibernatePolicy`. */
export const hibernatePolicy = crdEnum(["retain", "release"]);

/** CocoonHibernation `spec.desire` (case-sensitive). */
export const hibernationDesire = crdEnum(["Hibernate", "Wake"]);
