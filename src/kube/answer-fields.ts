import { describeJson } from "../json/describe";
import {
  isJsonObject,
  type JsonObject,
  type JsonPath,
  MISTYPED,
  type Read,
  readObject,
} from "../json/read";

/*
 * An apiserver answer's fields that the readers use are checked before it is
 * trusted: a mistyped one means it is not a real object of its kind, which
 * must fail closed rather than read as absent.
 */

export class MalformedField {
  constructor(
    /** Empty for the object itself. */
    readonly path: string,
    readonly problem: string,
  ) {}

  describe(): string {
    return `${this.path || "(the object)"}: ${this.problem}`;
  }
}

/** The object itself, typed as `Fields` once its fields are checked, else the first malformed one. */
export type FieldsCheck<Fields extends JsonObject = JsonObject> = (
  object: JsonObject,
) => Fields | MalformedField;

/** For a kind whose readers judge each field themselves and fail closed on what they cannot read. */
export const anyFields: FieldsCheck = (object) => object;

/**
 * Whether `reader` can read the field at `path`. An absent or null field (or
 * parent) passes unless `required`; a parent that is not an object is
 * reported at its own path.
 */
export function mistypedAt(
  root: JsonObject,
  path: JsonPath,
  reader: (value: unknown) => Read<unknown>,
  expected: string,
  required = false,
): MalformedField | undefined {
  let current: unknown = root;
  for (let index = 0; index < path.length; index++) {
    const parent = readObject(current);
    if (parent === MISTYPED) {
      return new MalformedField(
        path.slice(0, index).join("."),
        `expected an object, got ${describeType(current)}`,
      );
    }
    if (parent === undefined) break;
    current = parent[path[index] as string];
  }
  if (current === undefined || current === null) {
    return required
      ? new MalformedField(path.join("."), `expected ${expected}, got ${describeType(current)}`)
      : undefined;
  }
  if (reader(current) !== MISTYPED) return undefined;
  const got = Array.isArray(current) ? describeList(current) : describeType(current);
  return new MalformedField(path.join("."), `expected ${expected}, got ${got}`);
}

/** A list a reader refused: by its first entry that is not an object, the usual culprit. */
function describeList(list: readonly unknown[]): string {
  const index = list.findIndex((entry) => !isJsonObject(entry));
  return index === -1 ? "a list" : `a list whose entry [${index}] is ${describeType(list[index])}`;
}

function describeType(value: unknown): string {
  return value === undefined ? "nothing" : describeJson(value);
}
