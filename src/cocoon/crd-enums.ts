import {
  COCOONHIBERNATION_SCHEMA,
  COCOONSET_SCHEMA,
  type SchemaNode,
  schemaAt,
} from "./crd-schema";

/** An enumerated field of the CRDs, read once from the embedded schema: its values in the CRD's order. */
export interface CrdEnum {
  readonly options: readonly string[];
  /** Exactly one of the options: values are case-sensitive. */
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

export const agentMode = crdEnum(COCOONSET_SCHEMA, [...AGENT, "mode"]);
export const DEFAULT_AGENT_MODE = crdDefault(COCOONSET_SCHEMA, [...AGENT, "mode"]);

export const toolboxMode = crdEnum(COCOONSET_SCHEMA, [...TOOLBOX, "mode"]);
export const DEFAULT_TOOLBOX_MODE = crdDefault(COCOONSET_SCHEMA, [...TOOLBOX, "mode"]);

/** The agent's and a toolbox's `os` are one enum, as are their `backend` and `connType`. */
export const guestOs = crdEnum(COCOONSET_SCHEMA, [...AGENT, "os"]);
export const DEFAULT_GUEST_OS = crdDefault(COCOONSET_SCHEMA, [...AGENT, "os"]);

export const vmBackend = crdEnum(COCOONSET_SCHEMA, [...AGENT, "backend"]);
export const DEFAULT_VM_BACKEND = crdDefault(COCOONSET_SCHEMA, [...AGENT, "backend"]);

/** No default: vk-cocoon picks one per OS. */
export const connType = crdEnum(COCOONSET_SCHEMA, [...AGENT, "connType"]);

export const snapshotPolicy = crdEnum(COCOONSET_SCHEMA, ["spec", "snapshotPolicy"]);
export const hibernatePolicy = crdEnum(COCOONSET_SCHEMA, ["spec", "hibernatePolicy"]);

export const hibernationDesire = crdEnum(COCOONHIBERNATION_SCHEMA, ["spec", "desire"]);
