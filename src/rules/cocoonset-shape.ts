import { anyValue, decodeLeniently, type Lenient, text, wholeNumber } from "./lenient-decode";
import { type PathSegments, type ReportViolation, violation } from "./violation";

/** The CocoonSet fields the rules read; everything else is never decoded. */
const metadataShape = { name: text, generateName: text, namespace: text };
const specShape = {
  agent: anyValue,
  toolboxes: anyValue,
  snapshotPolicy: anyValue,
  hibernatePolicy: anyValue,
};
const vmOptionsShape = { image: text, os: anyValue, backend: anyValue, connType: anyValue };
const agentShape = { ...vmOptionsShape, replicas: wholeNumber, mode: anyValue };
const toolboxShape = {
  ...vmOptionsShape,
  name: text,
  mode: anyValue,
  staticIP: text,
  staticVMID: text,
};

export type MetadataFields = Lenient<typeof metadataShape>;
export type VmOptionFields = Lenient<typeof vmOptionsShape>;
export type AgentFields = Lenient<typeof agentShape>;
export type ToolboxFields = Lenient<typeof toolboxShape>;

export interface DecodedToolbox {
  readonly at: PathSegments;
  readonly fields: ToolboxFields;
}

/** A CocoonSet as far as it could be read; unreadable parts are already reported. */
export interface DecodedCocoonSet {
  readonly metadata: MetadataFields;
  /** Undefined when `spec` or `spec.agent` is not an object or has a mistyped field. */
  readonly agent: AgentFields | undefined;
  /** The toolboxes that could be read, each with its own path. */
  readonly toolboxes: readonly DecodedToolbox[];
  readonly snapshotPolicy?: unknown;
  readonly hibernatePolicy?: unknown;
}

export const AGENT_PATH: PathSegments = ["spec", "agent"];

export function decodeCocoonSet(
  root: Record<string, unknown>,
  report: ReportViolation,
): DecodedCocoonSet {
  // Unreadable metadata derives no names, so the name budget is skipped.
  const metadata = decodeLeniently(metadataShape, root.metadata, ["metadata"], report) ?? {};
  const spec = decodeLeniently(specShape, root.spec, ["spec"], report);
  if (!spec) return { metadata, agent: undefined, toolboxes: [] };
  return {
    metadata,
    agent: decodeLeniently(agentShape, spec.agent, AGENT_PATH, report),
    toolboxes: decodeToolboxes(spec.toolboxes, report),
    snapshotPolicy: spec.snapshotPolicy,
    hibernatePolicy: spec.hibernatePolicy,
  };
}

/** A toolbox's path is built when asked for: a million toolboxes need not keep a million paths. */
class ToolboxEntry implements DecodedToolbox {
  constructor(
    private readonly index: number,
    readonly fields: ToolboxFields,
  ) {}

  get at(): PathSegments {
    return ["spec", "toolboxes", this.index];
  }
}

function decodeToolboxes(items: unknown, report: ReportViolation): DecodedToolbox[] {
  if (items === undefined || items === null) return [];
  if (!Array.isArray(items)) {
    report("cocoonset.field-types", () =>
      violation("cocoonset.field-types", ["spec", "toolboxes"], "must be a list of toolboxes"),
    );
    return [];
  }
  const toolboxes: DecodedToolbox[] = [];
  for (let index = 0; index < items.length; index++) {
    const at = ["spec", "toolboxes", index];
    const fields = decodeLeniently(toolboxShape, items[index], at, report);
    if (fields) toolboxes.push(new ToolboxEntry(index, fields));
  }
  return toolboxes;
}
