/*
 * The Grafana dashboard (manifests/monitoring/dashboard.json; the chart holds
 * the same file) against the alert rules beside it: every series an alert
 * reads has a panel, and every query is narrowed by the cluster, namespace,
 * job and instance variables, so a Grafana that sees several clusters or
 * releases never mixes them. The dashboard is provisioned: not editable.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

const MONITORING = join(import.meta.dir, "../../manifests/monitoring");
const dashboard = JSON.parse(readFileSync(join(MONITORING, "dashboard.json"), "utf8")) as {
  editable: boolean;
  templating: { list: { name: string; type: string; multi?: boolean; allValue?: string }[] };
  panels: { title: string; targets?: { expr: string }[] }[];
};
const rules = parse(readFileSync(join(MONITORING, "prometheusrule.yaml"), "utf8")) as {
  spec: { groups: { rules: { alert: string; expr: string }[] }[] };
};

const VARIABLES = ["cluster", "namespace", "job", "instance"];
const exprs = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((each) => each.expr));

/** The series an expression selects: a name followed by its matchers or a range. */
function seriesOf(expr: string): string[] {
  return [...expr.matchAll(/\b([a-z_:][a-z0-9_:]*)\s*(?=\{)/g)]
    .map((match) => match[1] as string)
    .filter((name) => !["by", "without", "on", "ignoring"].includes(name));
}

describe("the dashboard and the alerts", () => {
  test("every series an alert reads is charted", () => {
    const charted = new Set(exprs.flatMap(seriesOf));
    const alerted = rules.spec.groups.flatMap((group) =>
      group.rules.flatMap((rule) =>
        seriesOf(rule.expr).map((series) => `${rule.alert}: ${series}`),
      ),
    );
    expect(alerted.length).toBeGreaterThan(10);
    const uncharted = alerted.filter((entry) => !charted.has(entry.split(": ")[1] as string));
    expect(uncharted).toEqual([]);
  });

  test("cluster, namespace, job and instance variables narrow every query", () => {
    const variables = dashboard.templating.list.filter((each) => VARIABLES.includes(each.name));
    expect(variables.map((each) => each.name)).toEqual(VARIABLES);
    for (const variable of variables) {
      // "All" must match a series without the label too (a single-cluster Prometheus).
      expect(variable, variable.name).toMatchObject({ type: "query", multi: true, allValue: ".*" });
    }
    expect(exprs.length).toBeGreaterThan(10);
    for (const expr of exprs) {
      const selectors = [...expr.matchAll(/\{([^}]*)\}/g)].map((match) => match[1] as string);
      expect(selectors.length, expr).toBeGreaterThan(0);
      for (const selector of selectors) {
        for (const name of VARIABLES) expect(selector, expr).toContain(`${name}=~"$${name}"`);
      }
    }
  });

  test("is provisioned read-only", () => {
    expect(dashboard.editable).toBe(false);
  });
});
