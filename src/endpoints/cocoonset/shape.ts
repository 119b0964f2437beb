import type { ReportViolation } from "../../contract/violations";
import { violation } from "../../contract/violations";
import { describeJson } from "../../json/describe";
import type { PathSegments } from "../../json/path";
import {
  isJsonObject,
  type JsonObject,
  MISTYPED,
  type Read,
  readInt,
  readList,
  readObject,
  readString,
} from "../../json/read";
import type { CocoonSetRuleId } from "./rules";

/*
 * The CocoonSet fields the rules read, each through a path reader; nothing else is read. The
 * apiserver's structural schema already rejects wrong types, so a mistyped field matters for the
 * offline `validate`, which reads raw YAML: it is reported at its path and reads as MISTYPED, so a
 * rule requiring it does not report it missing too. Enumerated fields are kept as sent: their
 * rules judge the raw value and list the allowed ones.
 */

export interface MetadataFields {
  readonly name?: string;
  readonly generateName?: string;
  readonly namespace?: string;
}

export interface VmOptionFields {
  readonly image?: Read<string>;
  readonly os?: unknown;
  readonly backend?: unknown;
  readonly connType?: unknown;
}

export interface AgentFields extends VmOptionFields {
  readonly replicas?: Read<number>;
  readonly mode?: unknown;
}

export interface ToolboxFields extends VmOptionFields {
  readonly name?: Read<string>;
  readonly mode?: unknown;
  readonly staticIP?: Read<string>;
  readonly staticVMID?: Read<string>;
}

const FIELD_TYPES = "cocoonset.field-types";

/**
 * By index in `spec.toolboxes`; undefined for one that could not be read (already reported). No
 * path is built per toolbox: a review may carry a million of them.
 */
export type DecodedToolboxes = readonly (ToolboxFields | undefined)[];

/** `spec.toolboxes[index]`, built only for a violation that is listed. */
export function toolboxPath(index: number): PathSegments {
  return ["spec", "toolboxes", index];
}

export interface DecodedCocoonSet {
  readonly metadata: MetadataFields;
  /** Undefined when `spec` or `spec.agent` is not an object. */
  readonly agent: AgentFields | undefined;
  readonly toolboxes: DecodedToolboxes;
  readonly snapshotPolicy?: unknown;
  readonly hibernatePolicy?: unknown;
}

export const AGENT_PATH: PathSegments = ["spec", "agent"];

export function decodeCocoonSet(
  root: JsonObject,
  report: ReportViolation<CocoonSetRuleId>,
): DecodedCocoonSet {
  // Unreadable metadata derives no names, so the name budget is skipped.
  const metadata = readMetadata(root.metadata, report) ?? {};
  const spec = objectField(root.spec, ["spec"], report);
  if (!spec) return { metadata, agent: undefined, toolboxes: [] };
  return {
    metadata,
    agent: readAgent(spec.agent, report),
    toolboxes: readToolboxes(spec.toolboxes, report),
    snapshotPolicy: spec.snapshotPolicy,
    hibernatePolicy: spec.hibernatePolicy,
  };
}

const EMPTY: JsonObject = Object.freeze({});

/** Absent or null reads as empty; anything else but an object is reported, and undefined. */
function objectField(
  value: unknown,
  at: PathSegments,
  report: ReportViolation<CocoonSetRuleId>,
): JsonObject | undefined {
  const object = readObject(value);
  if (object === MISTYPED) {
    report(FIELD_TYPES, () => mistyped(at, "must be an object", value));
    return undefined;
  }
  return object ?? EMPTY;
}

/** A mistyped value is reported at `<at>.<field>`, the path built only then. */
function field<T>(
  object: JsonObject,
  name: string,
  reader: (value: unknown) => Read<T>,
  expected: string,
  at: () => PathSegments,
  report: ReportViolation<CocoonSetRuleId>,
): Read<T> {
  const value = object[name];
  const read = reader(value);
  if (read === MISTYPED) report(FIELD_TYPES, () => mistyped([...at(), name], expected, value));
  return read;
}

const stringField = (
  object: JsonObject,
  name: string,
  at: () => PathSegments,
  report: ReportViolation<CocoonSetRuleId>,
) => field(object, name, readString, "must be a string", at, report);

function mistyped(at: PathSegments, expected: string, value: unknown) {
  return violation<CocoonSetRuleId>(FIELD_TYPES, at, `${expected}, got ${describeJson(value)}`);
}

const METADATA_PATH: PathSegments = ["metadata"];

function readMetadata(
  value: unknown,
  report: ReportViolation<CocoonSetRuleId>,
): MetadataFields | undefined {
  const object = objectField(value, METADATA_PATH, report);
  if (!object) return undefined;
  const at = () => METADATA_PATH;
  const name = stringField(object, "name", at, report);
  const generateName = stringField(object, "generateName", at, report);
  const namespace = stringField(object, "namespace", at, report);
  if (name === MISTYPED || generateName === MISTYPED || namespace === MISTYPED) return undefined;
  return { name, generateName, namespace };
}

function readAgent(
  value: unknown,
  report: ReportViolation<CocoonSetRuleId>,
): AgentFields | undefined {
  const object = objectField(value, AGENT_PATH, report);
  if (!object) return undefined;
  const at = () => AGENT_PATH;
  const { os, backend, connType, mode } = object;
  return {
    image: stringField(object, "image", at, report),
    replicas: field(object, "replicas", readInt, "must be a whole number", at, report),
    os,
    backend,
    connType,
    mode,
  };
}

function readToolboxes(value: unknown, report: ReportViolation<CocoonSetRuleId>): DecodedToolboxes {
  const items = readList(value);
  if (items === undefined) return [];
  if (items === MISTYPED) {
    report(FIELD_TYPES, () =>
      violation(FIELD_TYPES, ["spec", "toolboxes"], "must be a list of toolboxes"),
    );
    return [];
  }
  const toolboxes = new Array<ToolboxFields | undefined>(items.length);
  for (let index = 0; index < items.length; index++) {
    toolboxes[index] = readToolbox(items[index], index, report);
  }
  return toolboxes;
}

function readToolbox(
  value: unknown,
  index: number,
  report: ReportViolation<CocoonSetRuleId>,
): ToolboxFields | undefined {
  // Most entries of a huge list are empty: they share one result, and no path is built.
  if (isEmptyObject(value)) return EMPTY;
  const at = () => toolboxPath(index);
  const object = isJsonObject(value) ? value : objectField(value, at(), report);
  if (!object) return undefined;
  const { os, backend, connType, mode } = object;
  return {
    image: stringField(object, "image", at, report),
    name: stringField(object, "name", at, report),
    staticIP: stringField(object, "staticIP", at, report),
    staticVMID: stringField(object, "staticVMID", at, report),
    os,
    backend,
    connType,
    mode,
  };
}

function isEmptyObject(value: unknown): boolean {
  if (!isJsonObject(value)) return false;
  for (const _ in value) return false;
  return true;
}
