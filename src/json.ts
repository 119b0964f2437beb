import { z } from "zod";

/** A JSON object (not null, not an array), as decoded objects hold them. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A list of JSON objects, checked in one pass rather than a zod schema per entry (lists can be huge). */
export const jsonObjectList = z.custom<readonly Record<string, unknown>[]>(
  (value) => Array.isArray(value) && value.every(isJsonObject),
  { message: "expected a list of objects" },
);
