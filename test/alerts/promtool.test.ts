import { afterAll, describe, expect, test } from "bun:test";
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PrometheusRule } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import { ConfigMap } from "kubernetes-models/v1";
import { parse, stringify } from "yaml";
import { promtool } from "../../scripts/tools";
import { findObject, render } from "../manifests/kustomize";
import { exprsIn } from "../support/promql";
import { expressionProblems } from "../support/registered-series";

/*
 * The alerts as Prometheus users test theirs: promtool checks the rule groups
 * of manifests/monitoring's PrometheusRule and runs the unit tests of
 * *.test.yaml beside this file against them, a case where each alert fires and
 * one where it stays quiet.
 */

const TEST_FILES = readdirSync(import.meta.dir).filter((name) => name.endsWith(".test.yaml"));
/** promtool evaluates a week of rules in a few seconds; on a loaded machine, more. */
const PROMTOOL_TIMEOUT_MS = 120_000;

interface AlertCase {
  readonly alertname: string;
  readonly exp_alerts?: readonly unknown[];
}
interface RuleTest {
  readonly name: string;
  readonly input_series: readonly { readonly series: string }[];
  readonly alert_rule_test?: readonly AlertCase[];
}

const objects = render("manifests/monitoring");
const rule = findObject(objects, "PrometheusRule", "cocoon-webhook");
if (!PrometheusRule.is(rule)) throw new Error("not a PrometheusRule");
const groups = rule.spec.groups ?? [];
const alertNames = groups.flatMap((group) =>
  (group.rules ?? []).flatMap((entry) => (entry.alert === undefined ? [] : [entry.alert])),
);
const ruleTests = TEST_FILES.flatMap(
  (name) =>
    (parse(readFileSync(join(import.meta.dir, name), "utf8")) as { tests: RuleTest[] }).tests,
);

/** Built on first use (minutes, once per machine): at load time, outside any test's timeout. */
const PROMTOOL = promtool();

const workDir = mkdtempSync(join(tmpdir(), "cocoon-alerts-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** The rule groups as a Prometheus rule file (what the operator hands Prometheus), beside the tests. */
writeFileSync(join(workDir, "rules.yaml"), stringify({ groups }));
for (const name of TEST_FILES) copyFileSync(join(import.meta.dir, name), join(workDir, name));

function runPromtool(args: readonly string[]): { exitCode: number; output: string } {
  const run = Bun.spawnSync([PROMTOOL, ...args], {
    cwd: workDir,
    stdout: "pipe",
    stderr: "pipe",
  });
  return { exitCode: run.exitCode, output: `${run.stdout.toString()}${run.stderr.toString()}` };
}

/**
 * A dashboard query as PromQL: Grafana's interval variables become a duration,
 * every other variable a plain word (they stand inside label values or lists).
 */
function withoutGrafanaVariables(expr: string): string {
  return expr
    .replace(
      /\$(?:__rate_interval|__interval|__range)\b|\$\{(?:__rate_interval|__interval|__range)\}/g,
      "5m",
    )
    .replace(/\$\{[a-zA-Z0-9_:.]+\}|\$[a-zA-Z0-9_]+/g, "x");
}

describe("promtool check rules", () => {
  test("accepts the PrometheusRule's groups, lint findings included", () => {
    expect(alertNames.length).toBeGreaterThan(0);
    const { exitCode, output } = runPromtool(["check", "rules", "--lint-fatal", "rules.yaml"]);
    expect(output).toContain(`SUCCESS: ${alertNames.length} rules found`);
    expect(exitCode).toBe(0);
  });

  test("parses every dashboard query", () => {
    const dashboard = findObject(objects, "ConfigMap", "cocoon-webhook-dashboard");
    if (!ConfigMap.is(dashboard)) throw new Error("not a ConfigMap");
    const queries = exprsIn(dashboard.data);
    expect(queries.length).toBeGreaterThan(5);
    const rules = queries.map((expr, index) => ({
      record: `dashboard:query_${index}`,
      expr: withoutGrafanaVariables(expr),
    }));
    writeFileSync(
      join(workDir, "dashboard-queries.yaml"),
      stringify({ groups: [{ name: "dashboard", rules }] }),
    );
    const { exitCode, output } = runPromtool(["check", "rules", "dashboard-queries.yaml"]);
    expect(output).toContain(`SUCCESS: ${queries.length} rules found`);
    expect(exitCode).toBe(0);
  });

  test("refuses a malformed expression", () => {
    writeFileSync(
      join(workDir, "broken.yaml"),
      stringify({
        groups: [{ name: "broken", rules: [{ alert: "Broken", expr: "sum(rate(up[5m])" }] }],
      }),
    );
    const { exitCode, output } = runPromtool(["check", "rules", "broken.yaml"]);
    expect(exitCode).not.toBe(0);
    expect(output).toContain("unclosed left parenthesis");
  });
});

describe("promtool test rules", () => {
  test(
    "every case passes",
    () => {
      expect(TEST_FILES.length).toBeGreaterThan(0);
      const { exitCode, output } = runPromtool(["test", "rules", ...TEST_FILES]);
      expect(output.match(/SUCCESS/g)?.length, output).toBe(TEST_FILES.length);
      expect(exitCode).toBe(0);
    },
    PROMTOOL_TIMEOUT_MS,
  );

  test("every alert has a case where it fires and one where it stays quiet", () => {
    const cases = ruleTests.flatMap((ruleTest) => ruleTest.alert_rule_test ?? []);
    const firing = new Set(
      cases.filter((entry) => (entry.exp_alerts ?? []).length > 0).map((entry) => entry.alertname),
    );
    const quiet = new Set(
      cases
        .filter((entry) => (entry.exp_alerts ?? []).length === 0)
        .map((entry) => entry.alertname),
    );
    expect([...firing].sort()).toEqual([...alertNames].sort());
    expect([...quiet].sort()).toEqual([...alertNames].sort());
  });

  test("the cases' input series are series the webhook exposes, with its labels and values", () => {
    const problems = ruleTests.flatMap((ruleTest) =>
      ruleTest.input_series.flatMap(({ series }) =>
        expressionProblems(series).map((problem) => `${ruleTest.name}: ${problem}`),
      ),
    );
    expect(problems).toEqual([]);
  });

  test(
    "a case whose alert does not fire as expected fails",
    () => {
      const replicaDown = ruleTests.find((ruleTest) =>
        ruleTest.alert_rule_test?.some(
          (entry) =>
            entry.alertname === "CocoonWebhookReplicaDown" && (entry.exp_alerts ?? []).length > 0,
        ),
      );
      if (replicaDown === undefined) throw new Error("no firing case of CocoonWebhookReplicaDown");
      const wrong = JSON.parse(
        JSON.stringify(replicaDown).replace("cocoon-webhook-b", "cocoon-webhook-c"),
      ) as RuleTest;
      writeFileSync(
        join(workDir, "wrong.yaml"),
        stringify({ rule_files: ["rules.yaml"], evaluation_interval: "1m", tests: [wrong] }),
      );
      const { exitCode, output } = runPromtool(["test", "rules", "wrong.yaml"]);
      expect(exitCode).not.toBe(0);
      expect(output).toContain("alertname: CocoonWebhookReplicaDown");
      expect(output).toContain('pod="cocoon-webhook-b"');
    },
    PROMTOOL_TIMEOUT_MS,
  );
});
