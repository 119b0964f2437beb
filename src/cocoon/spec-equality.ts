import { isJsonObject } from "../json/read";
import { quantitiesEqual } from "./quantity";

/**
 * Where a CocoonSet spec holds resource quantities: `storage` of the VM
 * options and the values of `resources.limits` / `resources.requests`.
 * Only there do two strings compare by value. Elsewhere a string that merely
 * looks like a quantity is a name (toolbox `1k` is not toolbox `1000`), and
 * equating the two would let a real change skip validation.
 */
const QUANTITY_FIELD = "storage";
const QUANTITY_MAPS: ReadonlySet<string> = new Set(["limits", "requests"]);

type Position = "plain" | "quantity-map" | "quantity";

/**
 * Whether two specs mean the same: object key order is irrelevant, an
 * explicit `null` equals an absent field, and quantities compare by value
 * (`1Gi` equals `1024Mi`).
 */
export function specsSemanticallyEqual(left: unknown, right: unknown): boolean {
  return equalAt(left, right, "plain");
}

function equalAt(left: unknown, right: unknown, position: Position): boolean {
  if (position === "quantity") {
    const a = quantityText(left);
    const b = quantityText(right);
    if (a !== undefined && b !== undefined && quantitiesEqual(a, b)) return true;
  }
  if (Array.isArray(left) || Array.isArray(right)) {
    return (
      Array.isArray(left) &&
      Array.isArray(right) &&
      left.length === right.length &&
      left.every((item, index) => equalAt(item, right[index], "plain"))
    );
  }
  if (isJsonObject(left) && isJsonObject(right)) return recordsEqual(left, right, position);
  return left === right;
}

function recordsEqual(
  left: Record<string, unknown>,
  right: Record<string, unknown>,
  position: Position,
): boolean {
  const keys = new Set([...presentKeys(left), ...presentKeys(right)]);
  for (const key of keys) {
    if (!equalAt(left[key], right[key], childPosition(position, key))) return false;
  }
  return true;
}

function childPosition(parent: Position, key: string): Position {
  if (parent === "quantity-map") return "quantity";
  if (key === QUANTITY_FIELD) return "quantity";
  return QUANTITY_MAPS.has(key) ? "quantity-map" : "plain";
}

function presentKeys(record: Record<string, unknown>): string[] {
  return Object.keys(record).filter((key) => record[key] !== null && record[key] !== undefined);
}

/** Quantity fields are int-or-string in JSON: `2` and `"2"` are the same CPU count. */
function quantityText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}
