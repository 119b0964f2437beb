import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { parseAllDocuments } from "yaml";

/*
 * A deliberately small kustomize: it follows `resources:` and applies the two
 * transformations our kustomizations use (`images:` and a hash-less
 * `configMapGenerator:` from files). Anything else throws, so the renderer
 * stays faithful; the tests also compare it with `kubectl kustomize` where
 * kubectl is installed.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type KubeObject = { [key: string]: Json };

const SUPPORTED_KEYS = new Set(["apiVersion", "kind", "resources", "images", "configMapGenerator"]);

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
  const [kustomization] = readYamlDocuments(kustomizationFile(root));
  if (kustomization === undefined) throw new Error(`${root}: empty kustomization`);
  if (kustomization.kind !== "Kustomization") {
    throw new Error(
      `${root}: only kind Kustomization is rendered here (got ${kustomization.kind})`,
    );
  }
  for (const key of Object.keys(kustomization)) {
    if (!SUPPORTED_KEYS.has(key))
      throw new Error(`${root}: ${key} is not supported by the test renderer`);
  }
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
  return objects;
}

function generateConfigMap(root: string, generator: Json): KubeObject {
  if (!isRecord(generator)) throw new Error("a configMapGenerator entry must be a mapping");
  for (const key of Object.keys(generator)) {
    if (!["name", "namespace", "files", "options"].includes(key)) {
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
