import type { Context } from "hono";
import { echo } from "./echo";

/** The message of a thrown value, whatever was thrown. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What each error answer said was wrong, for the response's log line. */
const rejections = new WeakMap<Response, string>();

/** The reason an error answer gave, when it is one of jsonError's. */
export function rejectionOf(response: Response): string | undefined {
  return rejections.get(response);
}

type ErrorStatus = 400 | 404 | 405 | 413 | 415 | 500;

/** Every non-review answer is a small JSON object saying what was wrong. */
export function jsonError(c: Context, status: ErrorStatus, error: string, details?: string[]) {
  const response = c.json(details ? { error, details } : { error }, status);
  rejections.set(response, error);
  return response;
}

export function methodNotAllowed(c: Context, allowed: readonly string[]) {
  c.header("Allow", allowed.join(", "));
  return jsonError(
    c,
    405,
    `method ${echo(c.req.method)} not allowed on ${echo(c.req.path)}; use ${allowed.join(" or ")}`,
  );
}

export const notFound = (c: Context) => jsonError(c, 404, `no such path: ${echo(c.req.path)}`);
