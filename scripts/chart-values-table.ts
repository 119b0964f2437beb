import { isMap, isScalar, type Node, type Pair, parseDocument } from "yaml";

/*
 * The chart README's values table: one row per value an operator sets, with
 * its type from values.schema.json, its default from values.yaml and the
 * comment above it there. A map the schema describes key by key is broken
 * into its keys; any other value (a list, a free-form map) is one row.
 */

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  description?: string;
};

interface Row {
  readonly key: string;
  readonly type: string;
  readonly defaultValue: string;
  readonly description: string;
}

/** Longer defaults are left to values.yaml. */
const MAX_DEFAULT = 60;

export function valuesTable(valuesText: string, schema: Schema): string {
  const document = parseDocument(valuesText);
  const rows: Row[] = [];
  collect(document.contents, schema, "", rows);
  const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");
  return [
    "| Key | Type | Default | Description |",
    "| --- | --- | --- | --- |",
    ...rows.map(
      (row) =>
        `| \`${row.key}\` | ${cell(row.type)} | ${cell(row.defaultValue)} | ${cell(row.description)} |`,
    ),
  ].join("\n");
}

function collect(node: unknown, schema: Schema, prefix: string, rows: Row[]): void {
  if (!isMap(node)) return;
  for (const [index, pair] of (node.items as Pair<Node, Node>[]).entries()) {
    const name = isScalar(pair.key) ? String(pair.key.value) : "";
    const key = prefix ? `${prefix}.${name}` : name;
    const child = schema.properties?.[name] ?? {};
    // The comment above a map's first key belongs to the map in the YAML tree.
    const comment = commentOf(pair.key) || (index === 0 ? commentOf(node) : "");
    const description = comment || child.description || "";
    if (isMap(pair.value) && child.properties && pair.value.items.length > 0) {
      if (description) rows.push({ key, type: "object", defaultValue: "", description });
      collect(pair.value, child, key, rows);
      continue;
    }
    rows.push({
      key,
      type: typeOf(child, pair.value),
      defaultValue: defaultOf(pair.value),
      description,
    });
  }
}

/** The comment lines above a key in values.yaml, joined; the paragraph next to it only. */
function commentOf(node: Node | null): string {
  const text = node?.commentBefore ?? "";
  const paragraphs = text.split(/\n\s*\n/);
  return (paragraphs.at(-1) ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .join(" ");
}

function typeOf(schema: Schema, value: unknown): string {
  if (schema.enum) return schema.enum.map((each) => JSON.stringify(each)).join(", ");
  const type = schema.type ?? (isScalar(value) ? typeof value.value : "object");
  return Array.isArray(type) ? type.join(" or ") : type;
}

function defaultOf(value: unknown): string {
  const json = JSON.stringify((value as Node | null)?.toJSON?.() ?? null);
  if (json.length > MAX_DEFAULT) return "see values.yaml";
  return `\`${json}\``;
}
