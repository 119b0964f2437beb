import { cutShort } from "../bounded-text";
import { isJsonObject } from "./read";

const QUOTED_VALUE_LIMIT = 100;

/** A user-supplied string as a message shows it: JSON-quoted, cut short when long. */
export function quote(value: string): string {
  return JSON.stringify(cutShort(value, QUOTED_VALUE_LIMIT));
}

export function describeJson(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (isJsonObject(value)) return "an object";
  if (typeof value === "string") return quote(value);
  return String(value);
}
