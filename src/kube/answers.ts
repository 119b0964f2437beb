import { STATUS_CODES } from "node:http";
import { z } from "zod";
import { cutShort } from "../echo";
import { isJsonObject, jsonObjectList } from "../json/read";
import { apiGroupOf } from "./api-resources";
import type { RawAnswer } from "./http";
import { KubeApiError } from "./kube-api";

const EXCERPT_CHARS = 200;

const statusBody = z.looseObject({ message: z.string() });

export function isSuccess(answer: RawAnswer): boolean {
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
  if (status === 403) return " (check the webhook's RBAC)";
  return "";
}

/** The Status message when the body is a Kubernetes Status, else the start of the body. */
function bodyExcerpt(body: string): string {
  const status = statusBody.safeParse(tryParseJson(body));
  return excerpt(status.success ? status.data.message : body);
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

// What the apiserver writes when the object of a GET does not exist: details
// name the object and its resource (group omitted for the core group).
const notFoundStatus = z.looseObject({
  apiVersion: z.literal("v1"),
  kind: z.literal("Status"),
  reason: z.literal("NotFound"),
  details: z.looseObject({ name: z.string(), group: z.string().optional(), kind: z.string() }),
});

/**
 * Whether the answer says that the object asked for does not exist: a direct
 * 404 whose body is the apiserver's NotFound Status naming that object (name,
 * group and resource). Any other 404 — from a proxy in front of the
 * apiserver, or for a path it does not serve — says nothing about the object
 * and is a KubeApiError, so callers fail closed. False for other statuses.
 */
export function isVerifiedNotFound(
  operation: string,
  answer: RawAnswer,
  expected: ExpectedObject,
): boolean {
  if (answer.status !== 404) return false;
  const status = notFoundStatus.safeParse(tryParseJson(answer.body));
  if (status.success) {
    const { details } = status.data;
    if (
      details.name === expected.name &&
      (details.group ?? "") === apiGroupOf(expected.apiVersion) &&
      details.kind === expected.resource
    ) {
      return true;
    }
  }
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
  /**
   * Items may leave out apiVersion and kind, as the apiserver writes the items
   * of built-in lists (PodList, NodeList); when present they must match.
   */
  readonly itemsMayOmitKind?: boolean;
}

/**
 * The object of a GET answer, trusted only when it is a direct 2xx whose body
 * is exactly the object asked for (apiVersion, kind, name, namespace) and
 * whose fields the caller reads have the types `fields` requires. Anything
 * else — a Status body, `{}`, another kind or object, a mistyped field — is a
 * KubeApiError, so callers fail closed. A 404 is the caller's to check first
 * with isVerifiedNotFound.
 */
export function verifiedObject<Fields extends z.ZodType>(
  operation: string,
  answer: RawAnswer,
  expected: ExpectedObject,
  fields: Fields,
): z.output<Fields> {
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

// The apiserver writes `"items": []`, but a Go nil slice would read `null`; both mean none.
const listPageSchema = z.looseObject({
  metadata: z.looseObject({ continue: z.string().nullish() }).nullish(),
  items: jsonObjectList.nullable().transform((items) => items ?? []),
});

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
  const page = checkedFields(operation, answer, object, listPageSchema, expected.kind);
  const strayIndex = page.items.findIndex(
    (item) =>
      !(expected.itemsMayOmitKind && item.apiVersion === undefined && item.kind === undefined) &&
      (item.apiVersion !== expected.apiVersion || item.kind !== expected.itemKind),
  );
  const stray = page.items[strayIndex];
  if (stray) {
    const metadata = isJsonObject(stray.metadata) ? stray.metadata : {};
    throw untrusted(
      operation,
      answer,
      `a ${expected.kind} whose items[${strayIndex}] is ${describeIdentity(stray, metadata)}, ` +
        `not a ${expected.apiVersion} ${expected.itemKind}`,
    );
  }
  return { items: page.items, continueToken: page.metadata?.continue || undefined };
}

function checkedFields<Fields extends z.ZodType>(
  operation: string,
  answer: RawAnswer,
  object: Record<string, unknown>,
  fields: Fields,
  what: string,
): z.output<Fields> {
  const parsed = fields.safeParse(object);
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const where = issue?.path.length ? issue.path.join(".") : "(the object)";
  throw untrusted(
    operation,
    answer,
    `a malformed ${what}: ${where}: ${issue?.message ?? "unexpected type"}`,
  );
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
