import { STATUS_CODES } from "node:http";
import { cutShort } from "../bounded-text";
import { KubeApiError } from "../contract/reads";
import { isJsonObject, type JsonObject, readObjectList, readString, stringAt } from "../json/read";
import { type FieldsCheck, MalformedField, mistypedAt } from "../kube/answer-fields";
import { apiGroupOf } from "../kube/api-resources";
import type { RawAnswer } from "./transport";

const EXCERPT_CHARS = 200;

function isSuccess(answer: RawAnswer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

/** `GET …: apiserver answered 403 Forbidden: <the Status message>`. */
export function statusError(operation: string, answer: RawAnswer): KubeApiError {
  const reason = STATUS_CODES[answer.status] ?? "";
  const quoted = bodyExcerpt(answer.body);
  const detail = quoted ? `: ${quoted}` : "";
  return new KubeApiError(
    `${operation}: apiserver answered ${answer.status}${reason ? ` ${reason}` : ""}${detail}${hintFor(answer.status)}`,
    answer.status,
  );
}

function hintFor(status: number): string {
  if (status === 401)
    return " (check the bearer token or client certificate of the kubeconfig user)";
  if (status === 403) return " (check the RBAC of the account this client runs as)";
  return "";
}

/** The Status message when the body is a Kubernetes Status, else the start of the body. */
function bodyExcerpt(body: string): string {
  return excerpt(stringAt(tryParseJson(body), ["message"]) ?? body);
}

/** A JSON object, or KubeApiError naming the operation. */
function decodeObject(operation: string, answer: RawAnswer): Record<string, unknown> {
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

/** The object a GET asks for. `namespace` is absent for a cluster-scoped object (a Node). */
export interface ExpectedObject {
  readonly apiVersion: string;
  readonly kind: string;
  /** Its resource as the URL and a NotFound Status name it: `deployments`, `nodes`. */
  readonly resource: string;
  readonly name: string;
  readonly namespace?: string;
}

/** Whether `body` is the apiserver's NotFound Status naming this object and its resource. */
function namesMissingObject(body: unknown, expected: ExpectedObject): boolean {
  if (!isJsonObject(body)) return false;
  if (body.apiVersion !== "v1" || body.kind !== "Status" || body.reason !== "NotFound") {
    return false;
  }
  const { details } = body;
  if (!isJsonObject(details)) return false;
  // Compared with strings, so a mistyped field never matches; only an absent group is the core one.
  return (
    details.name === expected.name &&
    (details.group === undefined ? "" : details.group) === apiGroupOf(expected.apiVersion) &&
    details.kind === expected.resource
  );
}

/**
 * A 404 proves the object missing only when its body is the NotFound Status naming it; any other
 * 404 (a proxy, a path not served) is a KubeApiError, so callers fail closed.
 */
export function isVerifiedNotFound(
  operation: string,
  answer: RawAnswer,
  expected: ExpectedObject,
): boolean {
  if (answer.status !== 404) return false;
  if (namesMissingObject(tryParseJson(answer.body), expected)) return true;
  const quoted = bodyExcerpt(answer.body);
  throw new KubeApiError(
    `${operation}: apiserver answered 404 Not Found${quoted ? ` (${quoted})` : ""} without naming ` +
      `the ${describeExpected(expected)} asked for, so it does not say that object is missing; ` +
      "the answer is not trusted: check the apiserver URL of the kubeconfig and any proxy in between",
    404,
  );
}

/** The list a LIST asks for, such as `CocoonHibernationList` of `CocoonHibernation` items. */
export interface ExpectedList {
  readonly apiVersion: string;
  readonly kind: string;
  /** The kind of every item; items carry the list's apiVersion (custom resources always do). */
  readonly itemKind: string;
  /** The `limit` the page was asked for: a page with more items is not the apiserver's. */
  readonly maxItems?: number;
  /** The apiserver leaves apiVersion and kind out of built-in lists' items; when present they must match. */
  readonly itemsMayOmitKind?: boolean;
}

/**
 * The object of a GET answer, trusted only when it is a 2xx holding exactly the object asked for
 * with the field types `fields` requires; anything else is a KubeApiError (callers fail closed).
 */
export function verifiedObject<Fields extends JsonObject>(
  operation: string,
  answer: RawAnswer,
  expected: ExpectedObject,
  fields: FieldsCheck<Fields>,
): Fields {
  if (!isSuccess(answer)) throw statusError(operation, answer);
  const object = decodeObject(operation, answer);
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  const sameObject =
    object.apiVersion === expected.apiVersion &&
    object.kind === expected.kind &&
    metadata.name === expected.name &&
    (expected.namespace === undefined
      ? metadata.namespace === undefined || metadata.namespace === ""
      : metadata.namespace === expected.namespace);
  if (!sameObject) {
    throw untrusted(
      operation,
      answer,
      `${describeIdentity(object, metadata)} instead of the ${describeExpected(expected)} asked for`,
    );
  }
  return checkedFields(operation, answer, object, fields, describeExpected(expected));
}

/** One page of a LIST answer: the items (each a JSON object) and the token of the next page. */
export interface ListPage {
  readonly items: readonly Record<string, unknown>[];
  /** `metadata.continue`; undefined on the last page. */
  readonly continueToken: string | undefined;
}

const ITEMS = ["items"] as const;
const CONTINUE = ["metadata", "continue"] as const;

/** `items` may be `null` as well as `[]` (a Go nil slice): both mean none. */
interface ListPageFields extends JsonObject {
  readonly items: readonly JsonObject[] | null;
  readonly metadata?: { readonly continue?: string | null } | null;
}

const listPageFields: FieldsCheck<ListPageFields> = (object) =>
  mistypedAt(object, CONTINUE, readString, "a string") ??
  (object.items === undefined
    ? new MalformedField("items", "expected a list of objects, got nothing")
    : mistypedAt(object, ITEMS, readObjectList, "a list of objects")) ??
  (object as ListPageFields);

/** A LIST page, trusted only when it is a direct 2xx of the list kind asked for, every item of the kind asked for. */
export function verifiedListPage(
  operation: string,
  answer: RawAnswer,
  expected: ExpectedList,
): ListPage {
  if (!isSuccess(answer)) throw statusError(operation, answer);
  const object = decodeObject(operation, answer);
  if (object.apiVersion !== expected.apiVersion || object.kind !== expected.kind) {
    const metadata = isJsonObject(object.metadata) ? object.metadata : {};
    throw untrusted(
      operation,
      answer,
      `${describeIdentity(object, metadata)} instead of the ${expected.apiVersion} ${expected.kind} asked for`,
    );
  }
  // Counted before any item is decoded or kept: the apiserver never sends more than asked for.
  const { maxItems } = expected;
  if (maxItems !== undefined && Array.isArray(object.items) && object.items.length > maxItems) {
    throw untrusted(
      operation,
      answer,
      `a page of ${object.items.length} items where at most ${maxItems} were asked for`,
    );
  }
  const page = checkedFields(operation, answer, object, listPageFields, expected.kind);
  const items = page.items ?? [];
  const strayIndex = items.findIndex(
    (item) =>
      !(expected.itemsMayOmitKind && item.apiVersion === undefined && item.kind === undefined) &&
      (item.apiVersion !== expected.apiVersion || item.kind !== expected.itemKind),
  );
  const stray = items[strayIndex];
  if (stray) {
    const metadata = isJsonObject(stray.metadata) ? stray.metadata : {};
    throw untrusted(
      operation,
      answer,
      `a ${expected.kind} whose items[${strayIndex}] is ${describeIdentity(stray, metadata)}, ` +
        `not a ${expected.apiVersion} ${expected.itemKind}`,
    );
  }
  return { items, continueToken: page.metadata?.continue || undefined };
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

function describeExpected({ apiVersion, kind, name, namespace }: ExpectedObject): string {
  return `${apiVersion} ${kind} ${namespace === undefined ? name : `${namespace}/${name}`}`;
}

/** `a v1 Status ("…")`, `apps/v1 Deployment default/other`, `an object without apiVersion/kind`. */
function describeIdentity(
  identity: Record<string, unknown>,
  metadata: Record<string, unknown>,
): string {
  const { apiVersion, kind } = identity;
  if (typeof apiVersion !== "string" || typeof kind !== "string") {
    return "an object without apiVersion and kind";
  }
  if (kind === "Status") {
    const message = typeof identity.message === "string" ? ` (${excerpt(identity.message)})` : "";
    return `a ${apiVersion} Status${message}`;
  }
  const name = typeof metadata.name === "string" ? metadata.name : "";
  const namespace = typeof metadata.namespace === "string" ? metadata.namespace : "";
  const named = namespace ? `${namespace}/${name}` : name;
  return excerpt(`${apiVersion} ${kind}${named ? ` ${named}` : ""}`);
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
