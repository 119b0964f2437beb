import { STATUS_CODES } from "node:http";
import { cutShort } from "../bounded-text";
import { KubeApiError, type ObjectRef } from "../contract/reads";
import { isJsonObject, type JsonObject, readObjectList, readString, stringAt } from "../json/read";
import { type FieldsCheck, MalformedField, mistypedAt } from "../kube/answer-fields";
import { type ApiResource, apiVersionOf } from "../kube/api-resources";
import type { RawAnswer } from "./transport";

const EXCERPT_CHARS = 200;

/**
 * `undefined` only for the apiserver's own NotFound naming the object; another
 * object, a 404 from a proxy or a path not served is a KubeApiError, so callers fail closed.
 */
export function verifiedObject<Fields extends JsonObject>(
  operation: string,
  answer: RawAnswer,
  resource: ApiResource<Fields>,
  { namespace, name }: ObjectRef,
): Fields | undefined {
  const apiVersion = apiVersionOf(resource);
  const asked = `${apiVersion} ${resource.kind} ${namespace === undefined ? name : `${namespace}/${name}`}`;
  if (answer.status === 404) {
    if (namesMissingObject(tryParseJson(answer.body), resource, name)) return undefined;
    const quoted = bodyExcerpt(answer.body);
    throw new KubeApiError(
      `${operation}: apiserver answered 404 Not Found${quoted ? ` (${quoted})` : ""} without naming ` +
        `the ${asked} asked for, so it does not say that object is missing; ` +
        "the answer is not trusted: check the apiserver URL of the kubeconfig and any proxy in between",
      404,
    );
  }
  const object = decodedObject(operation, answer);
  const metadata = metadataOf(object);
  const sameObject =
    object.apiVersion === apiVersion &&
    object.kind === resource.kind &&
    metadata.name === name &&
    (namespace === undefined
      ? metadata.namespace === undefined || metadata.namespace === ""
      : metadata.namespace === namespace);
  if (!sameObject) {
    throw untrusted(
      operation,
      answer,
      `${describeIdentity(object)} instead of the ${asked} asked for`,
    );
  }
  return checkedFields(operation, answer, object, resource.fields, asked);
}

function namesMissingObject(body: unknown, resource: ApiResource, name: string): boolean {
  if (!isJsonObject(body)) return false;
  if (body.apiVersion !== "v1" || body.kind !== "Status" || body.reason !== "NotFound") {
    return false;
  }
  const { details } = body;
  if (!isJsonObject(details)) return false;
  // Compared with strings, so a mistyped field never matches; only an absent group is the core one.
  return (
    details.name === name &&
    (details.group === undefined ? "" : details.group) === resource.group &&
    details.kind === resource.plural
  );
}

/** `items` may be `null` as well as `[]` (a Go nil slice): both mean none. */
interface ListPageFields extends JsonObject {
  readonly items: readonly JsonObject[] | null;
  readonly metadata?: { readonly continue?: string | null } | null;
}

const listPageFields: FieldsCheck<ListPageFields> = (object) =>
  mistypedAt(object, ["metadata", "continue"], readString, "a string") ??
  (object.items === undefined
    ? new MalformedField("items", "expected a list of objects, got nothing")
    : mistypedAt(object, ["items"], readObjectList, "a list of objects")) ??
  (object as ListPageFields);

/**
 * A page is trusted only as a direct 2xx of its List kind, no longer than
 * asked for, every item of its kind with the field types the resource requires.
 */
export function verifiedListPage(
  operation: string,
  answer: RawAnswer,
  resource: ApiResource,
  pageSize: number,
) {
  const apiVersion = apiVersionOf(resource);
  const listKind = `${resource.kind}List`;
  const object = decodedObject(operation, answer);
  if (object.apiVersion !== apiVersion || object.kind !== listKind) {
    const identity = describeIdentity(object);
    throw untrusted(
      operation,
      answer,
      `${identity} instead of the ${apiVersion} ${listKind} asked for`,
    );
  }
  // Counted before any item is checked or kept: the apiserver never sends more than asked for.
  if (Array.isArray(object.items) && object.items.length > pageSize) {
    throw untrusted(
      operation,
      answer,
      `a page of ${object.items.length} items where at most ${pageSize} were asked for`,
    );
  }
  const page = checkedFields(operation, answer, object, listPageFields, listKind);
  const items = page.items ?? [];
  // The apiserver leaves apiVersion and kind out of the items of built-in lists (the core group,
  // apps: no dot in the group); a custom resource's items always carry them.
  const itemsMayOmitKind = !resource.group.includes(".");
  for (const [index, item] of items.entries()) {
    const kindOmitted =
      itemsMayOmitKind && item.apiVersion === undefined && item.kind === undefined;
    if (!kindOmitted && (item.apiVersion !== apiVersion || item.kind !== resource.kind)) {
      throw untrusted(
        operation,
        answer,
        `a ${listKind} whose items[${index}] is ${describeIdentity(item)}, ` +
          `not a ${apiVersion} ${resource.kind}`,
      );
    }
    const checked = resource.fields(item);
    if (checked instanceof MalformedField) {
      throw new KubeApiError(
        `${operation}: apiserver answered a ${listKind} whose items[${index}] is a malformed ` +
          `${resource.kind}: ${cutShort(checked.describe(), EXCERPT_CHARS)}; the answer is not trusted`,
      );
    }
  }
  return { items, continueToken: page.metadata?.continue || undefined };
}

const STATUS_HINTS: Readonly<Record<number, string>> = {
  401: " (check the bearer token or client certificate of the kubeconfig user)",
  403: " (check the RBAC of the account this client runs as)",
};

function decodedObject(operation: string, answer: RawAnswer): JsonObject {
  if (answer.status < 200 || answer.status >= 300) {
    const reason = STATUS_CODES[answer.status] ?? "";
    const quoted = bodyExcerpt(answer.body);
    throw new KubeApiError(
      `${operation}: apiserver answered ${answer.status}${reason ? ` ${reason}` : ""}${quoted ? `: ${quoted}` : ""}${STATUS_HINTS[answer.status] ?? ""}`,
      answer.status,
    );
  }
  const value = tryParseJson(answer.body);
  if (value === undefined) {
    throw new KubeApiError(
      `${operation}: apiserver answered ${answer.status} with a body that is not JSON: ${bodyExcerpt(answer.body)}`,
      answer.status,
    );
  }
  if (!isJsonObject(value)) {
    throw new KubeApiError(
      `${operation}: apiserver answered ${answer.status} with JSON that is not an object`,
      answer.status,
    );
  }
  return value;
}

function checkedFields<Fields extends JsonObject>(
  operation: string,
  answer: RawAnswer,
  object: JsonObject,
  fields: FieldsCheck<Fields>,
  what: string,
): Fields {
  const checked = fields(object);
  if (!(checked instanceof MalformedField)) return checked;
  throw untrusted(operation, answer, `a malformed ${what}: ${checked.describe()}`);
}

function untrusted(operation: string, answer: RawAnswer, what: string): KubeApiError {
  return new KubeApiError(
    `${operation}: apiserver answered ${answer.status} with ${what}; the answer is not trusted`,
    answer.status,
  );
}

function metadataOf(object: JsonObject): JsonObject {
  return isJsonObject(object.metadata) ? object.metadata : {};
}

function describeIdentity(object: JsonObject): string {
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== "string" || typeof kind !== "string") {
    return "an object without apiVersion and kind";
  }
  if (kind === "Status") {
    const message = typeof object.message === "string" ? ` (${excerpt(object.message)})` : "";
    return `a ${apiVersion} Status${message}`;
  }
  const metadata = metadataOf(object);
  const name = typeof metadata.name === "string" ? metadata.name : "";
  const namespace = typeof metadata.namespace === "string" ? metadata.namespace : "";
  const named = namespace ? `${namespace}/${name}` : name;
  return excerpt(`${apiVersion} ${kind}${named ? ` ${named}` : ""}`);
}

function bodyExcerpt(body: string): string {
  return excerpt(stringAt(tryParseJson(body), ["message"]) ?? body);
}

function excerpt(text: string): string {
  return cutShort(text.replace(/\s+/g, " ").trim(), EXCERPT_CHARS);
}

function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
