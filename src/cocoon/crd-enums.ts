import { z } from "zod";

/**
 * The enumerated fields of CocoonSet and CocoonHibernation. Each zod enum is
 * the one list of allowed values; a `DEFAULT_*` is what the CRD fills in when
 * the field is left unset.
 */

/** `spec.agent.mode`: clone restores a snapshot, run boots the image. */
export const agentMode = z.enum(["clone", "run"]);
export type AgentMode = z.infer<typeof agentMode>;
export const DEFAULT_AGENT_MODE: AgentMode = "clone";

/** `spec.toolboxes[].mode`: static attaches to an externally managed VM. */
export const toolboxMode = z.enum(["run", "clone", "static"]);
export type ToolboxMode = z.infer<typeof toolboxMode>;
export const DEFAULT_TOOLBOX_MODE: ToolboxMode = "run";

/** Guest operating system (`os`). */
export const guestOs = z.enum(["linux", "windows", "android", "macos"]);
export type GuestOs = z.infer<typeof guestOs>;
export const DEFAULT_GUEST_OS: GuestOs = "linux";

/** Hypervisor (`backend`). */
export const vmBackend = z.enum(["cloud-hypervisor", "firecracker"]);
export type VmBackend = z.infer<typeof vmBackend>;
export const DEFAULT_VM_BACKEND: VmBackend = "cloud-hypervisor";

/** Connection protocol (`connType`); no default, vk-cocoon picks one per OS. */
export const connType = z.enum(["ssh", "rdp", "vnc", "adb"]);

/** `spec.snapshotPolicy`. */
export const snapshotPolicy = z.enum(["always", "main-only", "never"]);

/** `spec.hibernatePolicy`. */
export const hibernatePolicy = z.enum(["retain", "release"]);

/** CocoonHibernation `spec.desire` (case-sensitive). */
export const hibernationDesire = z.enum(["Hibernate", "Wake"]);
