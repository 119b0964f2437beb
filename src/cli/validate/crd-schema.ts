import { parseQuantity } from "../../cocoon/quantity";
import { describeJson } from "../../json/describe";
import type { PathSegments } from "../../json/path";
import { isJsonObject, valueAt } from "../../json/read";
import type { ManifestRuleId } from "./manifest-rules";

/*
 * What the CocoonSet CRD's own schema refuses and the webhook never sees
 * (the apiserver rejects it first): checked offline so `validate` agrees
 * with the apiserver where it speaks. The limits are the CRD's
 * (cocoon-common apis/v1 cocoonset_types.go markers).
 */

export interface SchemaProblem {
  readonly rule: ManifestRuleId;
  readonly segments: PathSegments;
  readonly message: string;
}

const MAX_PORT = 65535;
const SNAPSHOT_CLASS_MAX_LENGTH = 63;
const SNAPSHOT_CLASS = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const RESOURCE_LISTS = ["limits", "requests"] as const;

/** Every CRD-schema problem of a CocoonSet object, in document order. */
export function cocoonSetSchemaProblems(cocoonSet: unknown): SchemaProblem[] {
  const spec = valueAt(cocoonSet, ["spec"]);
  if (!isJsonObject(spec)) return [];
  const problems: SchemaProblem[] = [];
  snapshotClassProblem(spec.snapshotCompatibilityClass, problems);
  const agent = spec.agent;
  if (isJsonObject(agent)) vmOptionProblems(agent, ["spec", "agent"], problems);
  if (Array.isArray(spec.toolboxes)) {
    spec.toolboxes.forEach((toolbox, index) => {
      if (!isJsonObject(toolbox)) return;
      const at = ["spec", "toolboxes", index];
      vmOptionProblems(toolbox, at, problems);
      portProblem(toolbox.vncPort, [...at, "vncPort"], problems);
    });
  }
  hibernateReleaseProblem(spec, problems);
  return problems;
}

function vmOptionProblems(
  options: Record<string, unknown>,
  at: PathSegments,
  problems: SchemaProblem[],
): void {
  portProblem(options.probePort, [...at, "probePort"], problems);
  quantityProblem(options.storage, [...at, "storage"], problems);
  const resources = options.resources;
  if (!isJsonObject(resources)) return;
  for (const list of RESOURCE_LISTS) {
    const quantities = resources[list];
    if (!isJsonObject(quantities)) continue;
    for (const [name, quantity] of Object.entries(quantities)) {
      quantityProblem(quantity, [...at, "resources", list, name], problems);
    }
  }
}

function portProblem(port: unknown, at: PathSegments, problems: SchemaProblem[]): void {
  if (port === undefined || port === null) return;
  if (typeof port === "number" && Number.isInteger(port) && port >= 0 && port <= MAX_PORT) return;
  problems.push({
    rule: "manifest.crd-port",
    segments: at,
    message: `is ${describeJson(port)}, but the CRD allows a whole number from 0 to ${MAX_PORT}, so the apiserver refuses it; use a TCP port number`,
  });
}

function quantityProblem(quantity: unknown, at: PathSegments, problems: SchemaProblem[]): void {
  if (quantity === undefined || quantity === null) return;
  const text = typeof quantity === "number" ? String(quantity) : quantity;
  if (typeof text === "string" && parseQuantity(text) !== undefined) return;
  problems.push({
    rule: "manifest.crd-quantity",
    segments: at,
    message: `is ${describeJson(quantity)}, which is not a Kubernetes quantity, so the apiserver refuses it; write an amount such as 20Gi, 512Mi, 2 or 500m`,
  });
}

function snapshotClassProblem(value: unknown, problems: SchemaProblem[]): void {
  if (value === undefined || value === null) return;
  if (
    typeof value === "string" &&
    value.length <= SNAPSHOT_CLASS_MAX_LENGTH &&
    SNAPSHOT_CLASS.test(value)
  ) {
    return;
  }
  problems.push({
    rule: "manifest.crd-snapshot-class",
    segments: ["spec", "snapshotCompatibilityClass"],
    message:
      `is ${describeJson(value)}, but the CRD allows at most ${SNAPSHOT_CLASS_MAX_LENGTH} letters, digits, "-", "_" and "." ` +
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
