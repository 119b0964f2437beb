import {
  COCOON_GROUP,
  COCOON_VERSION,
  COCOONHIBERNATION_KIND,
  COCOONSET_KIND,
} from "../../cocoon/crd-resources";
import {
  COCOONHIBERNATION_SCHEMA,
  COCOONSET_SCHEMA,
  type SchemaNode,
} from "../../cocoon/crd-schema";
import { namespaceOf } from "../../cocoon/namespace";
import type { Violation } from "../../contract/violations";
import type { RuleId } from "../../endpoints";
import { cocoonSetViolations } from "../../endpoints/cocoonset/decide";
import { hibernationViolations } from "../../endpoints/hibernation";
import { quote } from "../../json/describe";
import { formatPath, type PathSegments } from "../../json/path";
import { type JsonPath, stringAt, valueAt } from "../../json/read";
import { apiGroupOf } from "../../kube/api-resources";
import { closestMatch } from "../did-you-mean";
import { HibernationsByPod } from "../hibernation-conflicts";
import { cocoonSetSchemaProblems } from "./crd-schema";
import type { SourceObject } from "./documents";
import { type ManifestRuleId, type Severity, severityOf } from "./manifest-rules";
import { unknownFields, withObjectMeta } from "./unknown-fields";

type CheckedKind = typeof COCOONSET_KIND | typeof COCOONHIBERNATION_KIND;

export interface Finding {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly severity: Severity;
  /** The object's kind as written (an unknown cocoon object's may be misspelt). */
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly path: string;
  readonly message: string;
  readonly rule: RuleId | ManifestRuleId;
}

export interface CheckOptions {
  readonly namespace: string;
  readonly strict: boolean;
  /** For JUnit's one test case per object; otherwise only findings are kept. */
  readonly listChecked?: boolean;
}

export interface CheckedObject {
  readonly file: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly findings: readonly Finding[];
}

export interface CheckSummary {
  readonly findings: Finding[];
  readonly checked: CheckedObject[];
  readonly objects: number;
  readonly objectsWithFindings: number;
  /** Objects outside the cocoonstack.io groups, not checked. */
  readonly skipped: number;
  /** Counted for the note that the one-per-pod rule only sees the given files. */
  readonly hibernations: number;
}

const CHECKED_API_VERSION = `${COCOON_GROUP}/${COCOON_VERSION}`;
const CHECKED_KINDS: readonly CheckedKind[] = [COCOONSET_KIND, COCOONHIBERNATION_KIND];
const FIELDS: Readonly<Record<CheckedKind, SchemaNode>> = {
  [COCOONSET_KIND]: withObjectMeta(COCOONSET_SCHEMA),
  [COCOONHIBERNATION_KIND]: withObjectMeta(COCOONHIBERNATION_SCHEMA),
};
const NAME: JsonPath = ["metadata", "name"];
const GENERATE_NAME: JsonPath = ["metadata", "generateName"];
const POD_NAME: JsonPath = ["spec", "podRef", "name"];
const COCOON_GROUP_DOMAIN = "cocoonstack.io";

/** A finding before it is located. */
interface Problem {
  readonly rule: Finding["rule"];
  readonly segments: PathSegments;
  readonly message: string;
  readonly severity: Severity;
}

/** Objects come one at a time and are not kept: memory grows with the findings, not the input. */
export function createObjectChecker(options: CheckOptions) {
  const findings: Finding[] = [];
  const checked: CheckedObject[] = [];
  const hibernationsByPod = new HibernationsByPod();
  const severity = (rule: ManifestRuleId) => severityOf(rule, options);
  let objects = 0;
  let objectsWithFindings = 0;
  let skipped = 0;
  let hibernations = 0;
  const check = (object: SourceObject): void => {
    objects++;
    const namespace = namespaceOf(object.value, undefined, options.namespace);
    const kind = checkedKindOf(object);
    let problems: readonly Problem[];
    if (kind === undefined) {
      const unknown = unknownObjectProblem(object, severity("manifest.unknown-object"));
      if (!unknown) {
        skipped++;
        return;
      }
      problems = [unknown];
    } else {
      if (kind === COCOONHIBERNATION_KIND) hibernations++;
      const violations =
        kind === COCOONSET_KIND
          ? cocoonSetViolations(object.value, namespace)
          : hibernationViolationsAcrossInput(object, namespace, hibernationsByPod);
      const schemaProblems = kind === COCOONSET_KIND ? cocoonSetSchemaProblems(object.value) : [];
      problems = violations
        ? [
            ...violations.map((each): Problem => ({ ...each, severity: "error" })),
            ...schemaProblems.map((each): Problem => ({ ...each, severity: severity(each.rule) })),
            ...unknownFieldProblems(object.value, kind, severity("manifest.unknown-field")),
          ]
        : [undecodable(kind, severity("decode"))];
    }
    const kindName = typeof object.kind === "string" ? object.kind : "<no kind>";
    const located = problems
      .map((each) => locate(object, kindName, namespace, each))
      .sort((a, b) => a.line - b.line || a.column - b.column);
    if (options.listChecked) {
      checked.push({
        file: object.file,
        kind: kindName,
        namespace,
        name: nameOf(object.value),
        findings: located,
      });
    }
    if (located.length > 0) objectsWithFindings++;
    findings.push(...located);
  };
  return {
    check,
    summary: () => ({ findings, checked, objects, objectsWithFindings, skipped, hibernations }),
  };
}

function checkedKindOf({ apiVersion, kind }: SourceObject): CheckedKind | undefined {
  if (apiVersion !== CHECKED_API_VERSION) return undefined;
  return CHECKED_KINDS.find((checked) => checked === kind);
}

function isCocoonGroup(group: string): boolean {
  return group === COCOON_GROUP_DOMAIN || group.endsWith(`.${COCOON_GROUP_DOMAIN}`);
}

function unknownObjectProblem(object: SourceObject, severity: Severity): Problem | undefined {
  const { apiVersion, kind } = object;
  const kindText = typeof kind === "string" ? kind : "";
  const problem = (what: string, hint: string): Problem => ({
    rule: "manifest.unknown-object",
    segments: [],
    message: `${what}, so the object was not checked; ${hint}`,
    severity,
  });
  if (typeof apiVersion !== "string") {
    const meant = closestMatch(kindText, CHECKED_KINDS) ?? CHECKED_KINDS.find((k) => k === kind);
    if (!meant) return undefined;
    return problem("has no apiVersion", `a ${meant} needs apiVersion: ${CHECKED_API_VERSION}`);
  }
  // A cocoon kind of any group (the legacy cocoon.cis/v1alpha1 included) is no other project's.
  const cocoonKind = CHECKED_KINDS.find((checked) => checked === kind);
  if (!isCocoonGroup(apiGroupOf(apiVersion)) && cocoonKind === undefined) return undefined;
  if (apiVersion !== CHECKED_API_VERSION) {
    const meant = closestMatch(apiVersion, [CHECKED_API_VERSION]);
    return problem(
      `apiVersion ${quote(apiVersion)} is not one this tool knows`,
      meant ? `did you mean ${quote(meant)}?` : `it checks ${CHECKED_API_VERSION}`,
    );
  }
  const meant = closestMatch(kindText, CHECKED_KINDS);
  const shown = typeof kind === "string" ? quote(kind) : "(missing)";
  return problem(
    `kind ${shown} is not a kind of ${CHECKED_API_VERSION}`,
    meant ? `did you mean ${quote(meant)}?` : `its kinds are ${CHECKED_KINDS.join(" and ")}`,
  );
}

function unknownFieldProblems(value: unknown, kind: CheckedKind, severity: Severity): Problem[] {
  return unknownFields(value, FIELDS[kind]).map(({ segments, key, suggestion }) => ({
    rule: "manifest.unknown-field",
    segments,
    severity,
    message:
      `${quote(key)} is not a field of the ${kind} CRD, so the apiserver drops or rejects it; ` +
      (suggestion ? `did you mean ${quote(suggestion)}?` : "remove it or fix its name"),
  }));
}

function hibernationViolationsAcrossInput(
  object: SourceObject,
  namespace: string,
  hibernationsByPod: HibernationsByPod,
): Violation<RuleId>[] | undefined {
  const own = hibernationViolations(object.value);
  const podName = stringAt(object.value, POD_NAME);
  if (!own || !podName) return own;
  const metadata = {
    name: valueAt(object.value, NAME),
    deletionTimestamp: valueAt(object.value, ["metadata", "deletionTimestamp"]),
  };
  const where = () => `${object.file}:${object.positionOf(NAME).line}`;
  const conflicts = hibernationsByPod.add(`${namespace}/${podName}`, podName, metadata, where);
  return [
    ...own,
    ...conflicts.map(({ violation, earlier }) => ({
      ...violation,
      message: `${violation.message} (it is at ${earlier})`,
    })),
  ];
}

function undecodable(kind: CheckedKind, severity: Severity): Problem {
  return {
    rule: "decode",
    segments: [],
    severity,
    message: `is not a JSON object, so it cannot be a ${kind}; write it as a mapping with apiVersion, kind, metadata and spec`,
  };
}

function locate(
  object: SourceObject,
  kind: string,
  namespace: string,
  { rule, segments, message, severity }: Problem,
): Finding {
  const { line, column } = object.positionOf(segments);
  return {
    file: object.file,
    line,
    column,
    severity,
    kind,
    namespace,
    name: nameOf(object.value),
    path: formatPath(segments),
    message,
    rule,
  };
}

function nameOf(value: unknown): string {
  const name = stringAt(value, NAME);
  if (name) return name;
  const generateName = stringAt(value, GENERATE_NAME);
  return generateName ? `${generateName}*` : "<unnamed>";
}
