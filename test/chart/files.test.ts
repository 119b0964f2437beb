/*
 * What `make chart` writes into the hand-kept chart is committed: Chart.yaml's
 * version fields follow package.json and the CHANGELOG, and the README's
 * values table is the one values.yaml and values.schema.json give.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { CHART_DIR, chartFiles } from "../../scripts/chart-files";
import { valuesTable } from "../../scripts/chart-values-table";

const REPO = join(import.meta.dir, "../..");
const read = (path: string) => readFileSync(join(REPO, path), "utf8");

describe("make chart", () => {
  test.each([...chartFiles(read)])("%s is as make chart writes it", (path, text) => {
    expect(read(path)).toBe(text);
  });

  test("the chart's version and appVersion are package.json's", () => {
    const chart = parse(read(`${CHART_DIR}/Chart.yaml`)) as Record<string, unknown>;
    const { version } = JSON.parse(read("package.json")) as { version: string };
    expect(chart.version).toBe(version);
    expect(chart.appVersion).toBe(version);
  });

  test("the values table has a row for every value, its default and its comment", () => {
    const table = valuesTable(
      [
        "# The section.",
        "section:",
        "  # The switch.",
        "  enabled: false",
        "  free: {a: b}",
        "list: [1]",
      ].join("\n"),
      {
        properties: {
          section: { properties: { enabled: { type: "boolean" }, free: { type: "object" } } },
          list: { type: "array", description: "from the schema" },
        },
      },
    );
    expect(table.split("\n").slice(2)).toEqual([
      "| `section` | object |  | The section. |",
      "| `section.enabled` | boolean | `false` | The switch. |",
      '| `section.free` | object | `{"a":"b"}` |  |',
      "| `list` | array | `[1]` | from the schema |",
    ]);
  });
});
