import { COCOONSET_SCHEMA, type SchemaNode, schemaAt } from "../../cocoon/crd-schema";
import { parseQuantity } from "../../cocoon/quantity";
import { describeJson } from "../../json/describe";
import type { PathSegments } from "../../json/path";
import { isJsonObject, valueAt } from "../../json/read";
import type { ManifestRuleId } from "./manifest-rules";

// What the CRD's schema refuses never reaches the webhook: checked here so that validate agrees
// with the apiserver.

export interface SchemaProblem {
  readonly rule: ManifestRuleId;
  readonly segments: PathSegments;
  readonly message: string;
}

const SPEC = schemaAt(COCOONSET_SCHEMA, ["spec"]);
const SNAPSHOT_CLASS = schemaAt(SPEC, ["snapshotCompatibilityClass"]);
const SNAPSHOT_CLASS_PATTERN = new RegExp(SNAPSHOT_CLASS.pattern ?? "");

export function cocoonSetSchemaProblems(cocoonSet: unknown): SchemaProblem[] {
  const spec = valueAt(cocoonSet, ["spec"]);
  if (!isJsonObject(spec)) return [];
  const problems: SchemaProblem[] = [];
  boundsProblems(spec, SPEC, ["spec"], problems);
  hibernateReleaseProblem(spec, problems);
  return problems;
}

// Of the integers only those with a maximum (the ports): replicas' minimum alone is the webhook's
// own rule, not to be reported twice.
function boundsProblems(
  value: unknown,
  node: SchemaNode,
  at: PathSegments,
  problems: SchemaProblem[],
): void {
  if (value === undefined || value === null) return;
  if (node["x-kubernetes-int-or-string"]) quantityProblem(value, at, problems);
  else if (node.type === "integer" && node.maximum !== undefined) {
    portProblem(value, node.minimum ?? 0, node.maximum, at, problems);
  } else if (node === SNAPSHOT_CLASS) snapshotClassProblem(value, problems);
  else if (Array.isArray(value)) {
    const { items } = node;
    if (!items) return;
    for (const [index, item] of value.entries())
      boundsProblems(item, items, [...at, index], problems);
  } else if (isJsonObject(value)) {
    const { properties, additionalProperties } = node;
    for (const [key, field] of Object.entries(value)) {
      const child =
        properties && Object.hasOwn(properties, key) ? properties[key] : additionalProperties;
      if (child) boundsProblems(field, child, [...at, key], problems);
    }
  }
}

function portProblem(
  port: unknown,
  min: number,
  max: number,
  at: PathSegments,
  problems: SchemaProblem[],
): void {
  if (typeof port === "number" && Number.isInteger(port) && port >= min && port <= max) return;
  problems.push({
    rule: "manifest.crd-port",
    segments: at,
    message: `is ${describeJson(port)}, but the CRD allows a whole number from ${min} to ${max}, so the apiserver refuses it; use a TCP port number`,
  });
}

function quantityProblem(quantity: unknown, at: PathSegments, problems: SchemaProblem[]): void {
  const text = typeof quantity === "number" ? String(quantity) : quantity;
  if (typeof text === "string" && parseQuantity(text) !== undefined) return;
  problems.push({
    rule: "manifest.crd-quantity",
    segments: at,
    message: `is ${describeJson(quantity)}, which is not a Kubernetes quantity, so the apiserver refuses it; write an amount such as 20Gi, 512Mi, 2 or 500m`,
  });
}

function snapshotClassProblem(value: unknown, problems: SchemaProblem[]): void {
  const maxLength = SNAPSHOT_CLASS.maxLength ?? Number.POSITIVE_INFINITY;
  if (
    typeof value === "string" &&
    value.length <= maxLength &&
    SNAPSHOT_CLASS_PATTERN.test(value)
  ) {
    return;
  }
  problems.push({
    rule: "manifest.crd-snapshot-class",
    segments: ["spec", "snapshotCompatibilityClass"],
    message:
      `is ${describeJson(value)}, but the CRD allows at most ${maxLength} letters, digits, "-", "_" and "." ` +
      "that start and end with a letter or digit, so the apiserver refuses it; name the CPU class like a label value",
  });
}

/** The CRD's CEL rule: a set that releases its seat when suspended has only its main agent. */
function hibernateReleaseProblem(spec: Record<string, unknown>, problems: SchemaProblem[]): void {
  if (spec.hibernatePolicy !== "release") return;
  const agent = isJsonObject(spec.agent) ? spec.agent : {};
  const replicas = agent.replicas;
  const toolboxes = spec.toolboxes;
  const message = (what: string) =>
    `${what}, but hibernatePolicy release needs agent.replicas 0 and no toolboxes (the CRD's rule), so the apiserver refuses it; use hibernatePolicy retain, or a set of the main agent alone`;
  if (replicas !== undefined && replicas !== null && replicas !== 0) {
    problems.push({
      rule: "manifest.crd-hibernate-release",
      segments: ["spec", "agent", "replicas"],
      message: message(`is ${describeJson(replicas)}`),
    });
  }
  if (Array.isArray(toolboxes) && toolboxes.length > 0) {
    problems.push({
      rule: "manifest.crd-hibernate-release",
      segments: ["spec", "toolboxes"],
      message: message(`lists ${toolboxes.length} toolbox${toolboxes.length === 1 ? "" : "es"}`),
    });
  }
}
