import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { parseAllDocuments } from "yaml";

/*
 * A deliberately small kustomize: it follows `resources:` and `components:`
 * and applies the transformations our kustomizations use (`images:`, a
 * hash-less `configMapGenerator:` from files or literals, and `replacements:`
 * into a delimited part of a field). Anything else throws, so the renderer
 * stays faithful; the tests also compare it with `kubectl kustomize` where
 * kubectl is installed.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type KubeObject = { [key: string]: Json };

const SUPPORTED_KEYS = new Set([
  "apiVersion",
  "kind",
  "resources",
  "images",
  "configMapGenerator",
  "components",
  "replacements",
]);

export const REPO_ROOT = resolve(import.meta.dir, "../..");

export function isRecord(value: unknown): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asArray(value: Json | undefined, what: string): Json[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`${what} must be a list`);
  return value;
}

function asString(value: Json | undefined, what: string): string {
  if (typeof value !== "string") throw new Error(`${what} must be a string`);
  return value;
}

/** Every YAML document in a file, as plain JSON values; empty documents are skipped. */
export function readYamlDocuments(path: string): KubeObject[] {
  const documents = parseAllDocuments(readFileSync(path, "utf8"));
  const objects: KubeObject[] = [];
  for (const document of documents) {
    if (document.errors.length > 0) throw new Error(`${path}: ${document.errors[0]?.message}`);
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    if (!isRecord(value)) throw new Error(`${path}: a document is not a mapping`);
    objects.push(value);
  }
  return objects;
}

function kustomizationFile(directory: string): string {
  for (const name of ["kustomization.yaml", "kustomization.yml", "Kustomization"]) {
    const path = join(directory, name);
    if (existsSync(path)) return path;
  }
  throw new Error(`${directory}: no kustomization file`);
}

/** Renders the kustomization in `directory` (relative to the repository root or absolute). */
export function render(directory: string): KubeObject[] {
  const root = resolve(REPO_ROOT, directory);
  const kustomization = readKustomization(root, "Kustomization");
  const objects: KubeObject[] = [];
  for (const entry of asArray(kustomization.resources, "resources")) {
    const path = resolve(root, asString(entry, "a resource"));
    objects.push(...(statSync(path).isDirectory() ? render(path) : readYamlDocuments(path)));
  }
  for (const generator of asArray(kustomization.configMapGenerator, "configMapGenerator")) {
    objects.push(generateConfigMap(root, generator));
  }
  for (const image of asArray(kustomization.images, "images")) {
    applyImage(objects, image);
  }
  // Replacements run last, after every generator: kustomize's own order.
  const components = asArray(kustomization.components, "components").map((entry) =>
    readKustomization(resolve(root, asString(entry, "a component")), "Component"),
  );
  for (const replacement of [kustomization, ...components].flatMap((file) =>
    asArray(file.replacements, "replacements"),
  )) {
    applyReplacement(objects, replacement);
  }
  return objects;
}

function readKustomization(root: string, kind: "Kustomization" | "Component"): KubeObject {
  const [kustomization] = readYamlDocuments(kustomizationFile(root));
  if (kustomization === undefined) throw new Error(`${root}: empty kustomization`);
  if ((kustomization.kind ?? "Kustomization") !== kind) {
    throw new Error(`${root}: expected kind ${kind} here (got ${kustomization.kind})`);
  }
  for (const key of Object.keys(kustomization)) {
    if (!SUPPORTED_KEYS.has(key))
      throw new Error(`${root}: ${key} is not supported by the test renderer`);
    if (kind === "Component" && !["apiVersion", "kind", "replacements"].includes(key)) {
      throw new Error(`${root}: a component may only hold replacements here (got ${key})`);
    }
  }
  return kustomization;
}

/**
 * A replacement from one object's field into part of others' fields: each
 * target field split on `options.delimiter`, its `options.index` part set.
 */
function applyReplacement(objects: KubeObject[], replacement: Json): void {
  if (!isRecord(replacement) || !isRecord(replacement.source)) {
    throw new Error("a replacement needs a source");
  }
  const { source } = replacement;
  const from = findObject(
    objects,
    asString(source.kind, "source.kind"),
    asString(source.name, "source.name"),
  );
  const value = asString(
    fieldAt(from, asString(source.fieldPath, "source.fieldPath")),
    "the source field",
  );
  for (const target of asArray(replacement.targets, "targets")) {
    if (!isRecord(target) || !isRecord(target.select) || !isRecord(target.options)) {
      throw new Error("a target needs select and options (delimiter, index)");
    }
    const { select, options } = target;
    const delimiter = asString(options.delimiter, "options.delimiter");
    const index = options.index;
    if (typeof index !== "number") throw new Error("options.index must be a number");
    const object = findObject(
      objects,
      asString(select.kind, "select.kind"),
      asString(select.name, "select.name"),
    );
    for (const fieldPath of asArray(target.fieldPaths, "fieldPaths")) {
      const path = asString(fieldPath, "a fieldPath");
      const parts = asString(fieldAt(object, path), path).split(delimiter);
      if (index >= parts.length) throw new Error(`${path} has no part ${index}`);
      parts[index] = value;
      setFieldAt(object, path, parts.join(delimiter));
    }
  }
}

/** A kustomize field path split into steps: `a.[name=x.y].b` → a, [name=x.y], b. */
function splitSelectors(path: string): string[] {
  const steps: string[] = [];
  let current = "";
  let inSelector = false;
  for (const character of path) {
    if (character === "[") inSelector = true;
    if (character === "]") inSelector = false;
    if (character === "." && !inSelector) {
      steps.push(current);
      current = "";
      continue;
    }
    current += character;
  }
  steps.push(current);
  return steps;
}

function selectorStep(step: string): string | { key: string; value: string } {
  const match = /^\[([^=]+)=(.*)\]$/.exec(step);
  return match ? { key: match[1] ?? "", value: match[2] ?? "" } : step;
}

function stepInto(
  current: Json | undefined,
  step: string | { key: string; value: string },
): Json | undefined {
  if (typeof step === "string") return isRecord(current) ? current[step] : undefined;
  if (!Array.isArray(current)) return undefined;
  return current.find((entry) => isRecord(entry) && entry[step.key] === step.value);
}

function fieldAt(object: KubeObject, path: string): Json | undefined {
  return splitSelectors(path).map(selectorStep).reduce<Json | undefined>(stepInto, object);
}

function setFieldAt(object: KubeObject, path: string, value: string): void {
  const steps = splitSelectors(path).map(selectorStep);
  const last = steps.pop();
  const parent = steps.reduce<Json | undefined>(stepInto, object);
  if (typeof last !== "string" || !isRecord(parent)) throw new Error(`cannot set ${path}`);
  parent[last] = value;
}

function generateConfigMap(root: string, generator: Json): KubeObject {
  if (!isRecord(generator)) throw new Error("a configMapGenerator entry must be a mapping");
  for (const key of Object.keys(generator)) {
    if (!["name", "namespace", "files", "literals", "options"].includes(key)) {
      throw new Error(`configMapGenerator.${key} is not supported by the test renderer`);
    }
  }
  const options = generator.options ?? {};
  if (!isRecord(options) || options.disableNameSuffixHash !== true) {
    throw new Error("the test renderer only generates ConfigMaps with disableNameSuffixHash: true");
  }
  const data: { [key: string]: Json } = {};
  for (const file of asArray(generator.files, "configMapGenerator.files")) {
    const spec = asString(file, "a generator file");
    const [key, path] = spec.includes("=") ? spec.split("=", 2) : [basename(spec), spec];
    data[key ?? spec] = readFileSync(resolve(root, path ?? spec), "utf8");
  }
  for (const literal of asArray(generator.literals, "configMapGenerator.literals")) {
    const spec = asString(literal, "a generator literal");
    const separator = spec.indexOf("=");
    if (separator < 1) throw new Error(`literal ${spec} is not KEY=VALUE`);
    data[spec.slice(0, separator)] = spec.slice(separator + 1);
  }
  const metadata: { [key: string]: Json } = {
    name: asString(generator.name, "configMapGenerator.name"),
  };
  if (generator.namespace !== undefined) metadata.namespace = generator.namespace;
  if (options.labels !== undefined) metadata.labels = options.labels;
  if (options.annotations !== undefined) metadata.annotations = options.annotations;
  return { apiVersion: "v1", kind: "ConfigMap", metadata, data };
}

/** The image name without its tag or digest. */
export function imageName(image: string): string {
  const withoutDigest = image.split("@")[0] ?? image;
  const lastSlash = withoutDigest.lastIndexOf("/");
  const colon = withoutDigest.indexOf(":", lastSlash + 1);
  return colon === -1 ? withoutDigest : withoutDigest.slice(0, colon);
}

function applyImage(objects: KubeObject[], image: Json): void {
  if (!isRecord(image)) throw new Error("an images entry must be a mapping");
  const name = asString(image.name, "images[].name");
  const newName = image.newName === undefined ? name : asString(image.newName, "images[].newName");
  const digest = image.digest === undefined ? undefined : asString(image.digest, "images[].digest");
  const newTag = image.newTag === undefined ? undefined : asString(image.newTag, "images[].newTag");
  for (const container of podContainers(objects)) {
    const current = container.image;
    if (typeof current !== "string" || imageName(current) !== name) continue;
    const oldTag = current.slice(imageName(current).length);
    const suffix =
      digest !== undefined ? `@${digest}` : newTag !== undefined ? `:${newTag}` : oldTag;
    container.image = newName + suffix;
  }
}

function podContainers(objects: readonly KubeObject[]): Array<{ [key: string]: Json }> {
  const containers: Array<{ [key: string]: Json }> = [];
  for (const object of objects) {
    // A CronJob's pod template is one level further down, in its jobTemplate.
    const jobTemplate = isRecord(object.spec) ? object.spec.jobTemplate : undefined;
    const spec = isRecord(jobTemplate) ? jobTemplate.spec : object.spec;
    const template = isRecord(spec) ? spec.template : undefined;
    const podSpec = isRecord(template) ? template.spec : undefined;
    if (!isRecord(podSpec)) continue;
    for (const key of ["containers", "initContainers"]) {
      for (const container of asArray(podSpec[key], key)) {
        if (isRecord(container)) containers.push(container);
      }
    }
  }
  return containers;
}

/** `kubectl` on the PATH, or undefined. */
export const KUBECTL = Bun.which("kubectl") ?? undefined;

/** `kubectl kustomize <directory>`, parsed. */
export function kubectlKustomize(directory: string): KubeObject[] {
  if (KUBECTL === undefined) throw new Error("kubectl is not installed");
  const result = Bun.spawnSync([KUBECTL, "kustomize", resolve(REPO_ROOT, directory)], {
    stdout: "pipe",
    stderr: "pipe",
  });
  if (result.exitCode !== 0) {
    throw new Error(`kubectl kustomize ${directory}: ${result.stderr.toString()}`);
  }
  const documents = parseAllDocuments(result.stdout.toString());
  return documents.map((document) => {
    const value: unknown = document.toJS();
    if (!isRecord(value)) throw new Error("kubectl kustomize printed a non-mapping document");
    return value;
  });
}

/** `Kind namespace/name`, for inventories and messages. */
export function objectKey(object: KubeObject): string {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const namespace = typeof metadata.namespace === "string" ? `${metadata.namespace}/` : "";
  return `${String(object.kind)} ${namespace}${String(metadata.name)}`;
}

/** The one object of a kind and name; throws when absent. */
export function findObject(objects: readonly KubeObject[], kind: string, name: string): KubeObject {
  const found = objects.find((object) => {
    const metadata = object.metadata;
    return object.kind === kind && isRecord(metadata) && metadata.name === name;
  });
  if (found === undefined) throw new Error(`no ${kind} ${name}`);
  return found;
}

export function repoPath(...segments: string[]): string {
  return join(REPO_ROOT, ...segments);
}
