import {
  COCOON_GROUP,
  COCOON_VERSION,
  COCOONHIBERNATION_KIND,
  COCOONSET_KIND,
} from "../cocoon/keys";
import { isJsonObject } from "../json";
import type { RuleId } from "../rules/catalogue";
import { cocoonSetViolations } from "../rules/cocoonset";
import { conflictingHibernations, hibernationViolations } from "../rules/hibernation";
import type { Violation } from "../rules/violation";
import type { SourceObject } from "./documents";

type CheckedKind = typeof COCOONSET_KIND | typeof COCOONHIBERNATION_KIND;

/** One violation of one object, located in its file. */
export interface Finding {
  readonly file: string;
  readonly line: number;
  readonly kind: CheckedKind;
  readonly namespace: string;
  readonly name: string;
  readonly path: string;
  readonly message: string;
  /** A catalogue rule, or `decode` when the object is not an object at all. */
  readonly rule: RuleId | "decode";
}

export interface CheckSummary {
  readonly findings: Finding[];
  readonly objects: number;
  readonly invalidObjects: number;
  readonly skipped: number;
}

/** A hibernation already seen, for the one-per-pod check across the input. */
interface SeenHibernation {
  readonly value: unknown;
  readonly where: string;
}

/**
 * Runs the server's own rules over every CocoonSet and CocoonHibernation;
 * other kinds are skipped. Two CocoonHibernations for one pod in one
 * namespace conflict as they would at the apiserver: the later one is denied.
 */
export function checkObjects(
  objects: readonly SourceObject[],
  fallbackNamespace: string,
): CheckSummary {
  const findings: Finding[] = [];
  const hibernationsByPod = new Map<string, SeenHibernation[]>();
  let invalidObjects = 0;
  let skipped = 0;
  for (const object of objects) {
    const kind = checkedKindOf(object);
    if (!kind) {
      skipped++;
      continue;
    }
    const namespace = stringField(object.value, "metadata", "namespace") || fallbackNamespace;
    const violations =
      kind === COCOONSET_KIND
        ? cocoonSetViolations(object.value, namespace)
        : hibernationViolationsAcrossInput(object, namespace, hibernationsByPod);
    const problems: readonly Problem[] = violations ?? [undecodable(kind)];
    const located = problems.map((each) => locate(object, kind, namespace, each));
    if (located.length > 0) invalidObjects++;
    findings.push(...located);
  }
  return { findings, objects: objects.length, invalidObjects, skipped };
}

function checkedKindOf({ apiVersion, kind }: SourceObject): CheckedKind | undefined {
  if (apiVersion !== `${COCOON_GROUP}/${COCOON_VERSION}`) return undefined;
  return kind === COCOONSET_KIND || kind === COCOONHIBERNATION_KIND ? kind : undefined;
}

function hibernationViolationsAcrossInput(
  object: SourceObject,
  namespace: string,
  hibernationsByPod: Map<string, SeenHibernation[]>,
): Violation[] | undefined {
  const own = hibernationViolations(object.value);
  const podName = stringField(object.value, "spec", "podRef", "name");
  if (!own || !podName) return own;
  const key = `${namespace}/${podName}`;
  const earlier = hibernationsByPod.get(key) ?? [];
  hibernationsByPod.set(key, earlier);
  const conflicts = earlier.flatMap(({ value, where }) =>
    conflictingHibernations(podName, [value]).map((conflict) => ({
      ...conflict,
      message: `${conflict.message} (it is at ${where})`,
    })),
  );
  const where = `${object.file}:${object.lineOf(["metadata", "name"])}`;
  earlier.push({ value: object.value, where });
  return [...own, ...conflicts];
}

/** A violation, or the object not being an object at all. */
type Problem = Omit<Violation, "rule"> & { readonly rule: Finding["rule"] };

function undecodable(kind: CheckedKind): Problem {
  return {
    rule: "decode",
    path: "",
    segments: [],
    message: `is not a JSON object, so it cannot be a ${kind}; write it as a mapping with apiVersion, kind, metadata and spec`,
  };
}

function locate(
  object: SourceObject,
  kind: CheckedKind,
  namespace: string,
  { rule, path, segments, message }: Problem,
): Finding {
  return {
    file: object.file,
    line: object.lineOf(segments),
    kind,
    namespace,
    name: nameOf(object.value),
    path,
    message,
    rule,
  };
}

function nameOf(value: unknown): string {
  const name = stringField(value, "metadata", "name");
  if (name) return name;
  const generateName = stringField(value, "metadata", "generateName");
  return generateName ? `${generateName}*` : "<unnamed>";
}

/** The string at `keys` inside `value`, or "" when any step is missing or not a string. */
function stringField(value: unknown, ...keys: string[]): string {
  let current = value;
  for (const key of keys) current = isJsonObject(current) ? current[key] : undefined;
  return typeof current === "string" ? current : "";
}
