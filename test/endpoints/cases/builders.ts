/** Small builders so rule tests read like tables: only what a case changes is spelled out. */

type Fields = Record<string, unknown>;

export const VALID_AGENT: Fields = { image: "org/agent:1.0" };

export interface CocoonSetParts {
  readonly name?: string | undefined;
  readonly generateName?: string;
  readonly agent?: Fields;
  readonly toolboxes?: unknown;
  readonly spec?: Fields;
}

/** A valid CocoonSet named `demo`; `agent` fields are merged over a valid agent. */
export function cocoonSet(parts: CocoonSetParts = {}): Fields {
  const metadata: Fields =
    parts.generateName === undefined
      ? { name: "name" in parts ? parts.name : "demo" }
      : { generateName: parts.generateName };
  const spec: Fields = { agent: { ...VALID_AGENT, ...parts.agent }, ...parts.spec };
  if (parts.toolboxes !== undefined) spec.toolboxes = parts.toolboxes;
  return {
    apiVersion: "cocoonset.cocoonstack.io/v1",
    kind: "CocoonSet",
    metadata,
    spec,
  };
}

/** A valid run-mode toolbox named `tools`. */
export function toolbox(fields: Fields = {}): Fields {
  return { name: "tools", image: "org/tools:1.0", ...fields };
}

/** A valid static toolbox named `legacy`. */
export function staticToolbox(fields: Fields = {}): Fields {
  return { name: "legacy", mode: "static", staticIP: "10.0.0.5", staticVMID: "vm-42", ...fields };
}

/** A CocoonSet with one toolbox. */
export function withToolbox(fields: Fields = {}, agent: Fields = {}): Fields {
  return cocoonSet({ agent, toolboxes: [toolbox(fields)] });
}

export interface HibernationParts {
  readonly name?: unknown;
  readonly pod?: unknown;
  readonly desire?: unknown;
  readonly deletionTimestamp?: string;
}

/** A CocoonHibernation for pod `demo-0`, named after it, asking to hibernate. */
export function hibernation(parts: HibernationParts = {}): Fields {
  const pod = "pod" in parts ? parts.pod : "demo-0";
  const metadata: Fields = { name: "name" in parts ? parts.name : pod, namespace: "default" };
  if (parts.deletionTimestamp) metadata.deletionTimestamp = parts.deletionTimestamp;
  return {
    apiVersion: "cocoonset.cocoonstack.io/v1",
    kind: "CocoonHibernation",
    metadata,
    spec: { podRef: { name: pod }, desire: "desire" in parts ? parts.desire : "Hibernate" },
  };
}
