import { STATUS_CODES } from "node:http";
import { z } from "zod";
import { isJsonObject } from "../json";
import type { RawAnswer } from "./http";
import { KubeApiError } from "./port";

const EXCERPT_CHARS = 200;

const statusBody = z.looseObject({ message: z.string() });

// The apiserver writes `"items": []`, but a Go nil slice would read `null`; both mean none.
const listBody = z.looseObject({
  items: z
    .array(z.unknown())
    .nullable()
    .transform((items) => items ?? []),
});

export function isSuccess(answer: RawAnswer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

/** `GET …: apiserver answered 403 Forbidden: <the Status message>`. */
export function statusError(operation: string, answer: RawAnswer): KubeApiError {
  const reason = STATUS_CODES[answer.status] ?? "";
  const excerpt = bodyExcerpt(answer.body);
  const detail = excerpt ? `: ${excerpt}` : "";
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
  const text = (status.success ? status.data.message : body).replace(/\s+/g, " ").trim();
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

/** A JSON object, or KubeApiError naming the operation. */
export function decodeObject(operation: string, answer: RawAnswer): Record<string, unknown> {
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

/** The `items` of a LIST answer, or KubeApiError when there is no items array. */
export function decodeListItems(operation: string, answer: RawAnswer): readonly unknown[] {
  const list = listBody.safeParse(decodeObject(operation, answer));
  if (!list.success) {
    throw new KubeApiError(
      `${operation}: apiserver answered ${answer.status} with a list that has no items array`,
      answer.status,
    );
  }
  return list.data.items;
}

function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
