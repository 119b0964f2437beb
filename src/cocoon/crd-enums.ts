import {
  COCOONHIBERNATION_SCHEMA,
  COCOONSET_SCHEMA,
  type SchemaNode,
  schemaAt,
} from "./crd-schema";

/**
 * The enumerated fields of CocoonSet and CocoonHibernation, read once from
 * the embedded CRD schema: the allowed values in the CRD's order, and the
 * default the CRD fills in when the field is left unset.
 */
export interface CrdEnum {
  readonly options: readonly string[];
  /** Whether `value` is one of the options, exactly (values are case-sensitive). */
  allows(value: unknown): value is string;
}

function crdEnum(schema: SchemaNode, path: readonly string[]): CrdEnum {
  const options = schemaAt(schema, path).enum ?? [];
  if (options.length === 0) throw new Error(`the CRD schema's ${path.join(".")} has no enum`);
  const allowed: ReadonlySet<unknown> = new Set(options);
  return { options, allows: (value): value is string => allowed.has(value) };
}

function crdDefault(schema: SchemaNode, path: readonly string[]): string {
  const value = schemaAt(schema, path).default;
  if (typeof value !== "string")
    throw new Error(`the CRD schema's ${path.join(".")} has no default`);
  return value;
}

const AGENT = ["spec", "agent"];
const TOOLBOX = ["spec", "toolboxes", "[]"];

/** `spec.agent.mode`: clone restores a snapshot, run boots the image. */
export const agentMode = crdEnum(COCOONSET_SCHEMA, [...AGENT, "mode"]);
export const DEFAULT_AGENT_MODE = crdDefault(COCOONSET_SCHEMA, [...AGENT, "mode"]);

/** `spec.toolboxes[].mode`: static attaches to an externally managed VM. */
export const toolboxMode = crdEnum(COCOONSET_SCHEMA, [...TOOLBOX, "mode"]);
export const DEFAULT_TOOLBOX_MODE = crdDefault(COCOONSET_SCHEMA, [...TOOLBOX, "mode"]);

/** Guest operating system (`os`); the agent's and a toolbox's are one enum. */
export const guestOs = crdEnum(COCOONSET_SCHEMA, [...AGENT, "os"]);
export const DEFAULT_GUEST_OS = crdDefault(COCOONSET_SCHEMA, [...AGENT, "os"]);

/** Hypervisor (`backend`). */
export const vmBackend = crdEnum(COCOONSET_SCHEMA, [...AGENT, "backend"]);
export const DEFAULT_VM_BACKEND = crdDefault(COCOONSET_SCHEMA, [...AGENT, "backend"]);

/** Connection protocol (`connType`); no default, vk-cocoon picks one per OS. */
export const connType = crdEnum(COCOONSET_SCHEMA, [...AGENT, "connType"]);

export const snapshotPolicy = crdEnum(COCOONSET_SCHEMA, ["spec", "snapshotPolicy"]);
export const hibernatePolicy = crdEnum(COCOONSET_SCHEMA, ["spec", "hibernatePolicy"]);

/** CocoonHibernation `spec.desire` (case-sensitive). */
export const hibernationDesire = crdEnum(COCOONHIBERNATION_SCHEMA, ["spec", "desire"]);
