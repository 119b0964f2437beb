import type { ReportViolation } from "../../admission/violations";
import type { PathSegments } from "../../json/path";
import { MISTYPED, readList } from "../../json/read";
import type { CocoonSetRuleId } from "../catalogue";
import { type Fields, hasNoFieldOf, mistypedField, noFields, readFields } from "./fields";

/*
 * The CocoonSet fields the rules read; everything else is never read. The
 * CRD's structural schema already rejects wrong types at the apiserver; a
 * mistyped field matters for the offline `validate` CLI, which reads raw YAML.
 */
const metadataShape = { name: "string", generateName: "string", namespace: "string" } as const;
const specShape = {
  agent: "any",
  toolboxes: "any",
  snapshotPolicy: "any",
  hibernatePolicy: "any",
} as const;
const vmOptionsShape = { image: "string", os: "any", backend: "any", connType: "any" } as const;
const agentShape = { ...vmOptionsShape, replicas: "int", mode: "any" } as const;
const toolboxShape = {
  ...vmOptionsShape,
  name: "string",
  mode: "any",
  staticIP: "string",
  staticVMID: "string",
} as const;

/** Every mistyped field of a CocoonSet is reported under this rule, at its path. */
const FIELD_TYPES = "cocoonset.field-types";

export type MetadataFields = Fields<typeof metadataShape>;
export type VmOptionFields = Fields<typeof vmOptionsShape>;
export type AgentFields = Fields<typeof agentShape>;
export type ToolboxFields = Fields<typeof toolboxShape>;

/**
 * The toolboxes as read, by their index in `spec.toolboxes`; undefined for
 * one that could not be read (already reported). No object is made per
 * toolbox: a review may carry a million of them, and checking one that
 * breaks no rule, or whose violations are only counted, must not allocate.
 */
export type DecodedToolboxes = readonly (ToolboxFields | undefined)[];

/** `spec.toolboxes[index]`, built only for a violation that is listed. */
export function toolboxPath(index: number): PathSegments {
  return ["spec", "toolboxes", index];
}

/** A CocoonSet as far as it could be read; unreadable parts are already reported. */
export interface DecodedCocoonSet {
  readonly metadata: MetadataFields;
  /** Undefined when `spec` or `spec.agent` is not an object or has a mistyped field. */
  readonly agent: AgentFields | undefined;
  readonly toolboxes: DecodedToolboxes;
  readonly snapshotPolicy?: unknown;
  readonly hibernatePolicy?: unknown;
}

export const AGENT_PATH: PathSegments = ["spec", "agent"];

export function decodeCocoonSet(
  root: Record<string, unknown>,
  report: ReportViolation<CocoonSetRuleId>,
): DecodedCocoonSet {
  // Unreadable metadata derives no names, so the name budget is skipped.
  const metadata =
    readFields(metadataShape, root.metadata, ["metadata"], FIELD_TYPES, report) ?? {};
  const spec = readFields(specShape, root.spec, ["spec"], FIELD_TYPES, report);
  if (!spec) return { metadata, agent: undefined, toolboxes: [] };
  return {
    metadata,
    agent: readFields(agentShape, spec.agent, AGENT_PATH, FIELD_TYPES, report),
    toolboxes: decodeToolboxes(spec.toolboxes, report),
    snapshotPolicy: spec.snapshotPolicy,
    hibernatePolicy: spec.hibernatePolicy,
  };
}

function decodeToolboxes(raw: unknown, report: ReportViolation<CocoonSetRuleId>): DecodedToolboxes {
  const items = readList(raw);
  if (items === undefined) return [];
  if (items === MISTYPED) {
    report(FIELD_TYPES, () =>
      mistypedField(FIELD_TYPES, ["spec", "toolboxes"], "must be a list of toolboxes"),
    );
    return [];
  }
  const toolboxes = new Array<ToolboxFields | undefined>(items.length);
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    toolboxes[index] = hasNoFieldOf(toolboxShape, item)
      ? noFields()
      : readFields(toolboxShape, item, toolboxPath(index), FIELD_TYPES, report);
  }
  return toolboxes;
}
