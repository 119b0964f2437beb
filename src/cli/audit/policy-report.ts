import { located } from "../formats/view";
import type { AuditFinding, AuditSeverity } from "./checks";
import type { AuditReport } from "./scan";

/** The name of the PolicyReport audit writes in each namespace: applying it again replaces the last one. */
export const POLICY_REPORT_NAME = "cocoon-webhook-audit";
const POLICY = "cocoon-webhook";
/** The CronJob prunes stale reports only after an `all-namespaces` run. */
const POLICY_REPORT_SCOPE_ANNOTATION = "audit.cocoon-webhook.cocoonstack.io/scope";

const RESULTS: Record<AuditSeverity, { result: "fail" | "warn"; severity: string }> = {
  error: { result: "fail", severity: "high" },
  warning: { result: "warn", severity: "medium" },
  notice: { result: "warn", severity: "info" },
};

/** One per namespace checked, findings or not, so applying the List clears an earlier report. */
export function policyReports(report: AuditReport, now: Date): Record<string, unknown> {
  const timestamp = { seconds: Math.floor(now.getTime() / 1000), nanos: 0 };
  const byNamespace = Map.groupBy(report.findings, (finding) => finding.namespace);
  const namespaces = [
    ...new Set([
      ...report.checkedByNamespace.keys(),
      ...byNamespace.keys(),
      ...(report.namespace === undefined ? [] : [report.namespace]),
    ]),
  ]
    .filter(Boolean)
    .sort();
  const scope = report.namespace === undefined ? "all-namespaces" : "namespace";
  const items = namespaces.map((namespace) => {
    const findings = byNamespace.get(namespace) ?? [];
    const results = findings.map((finding) => result(finding, timestamp));
    const withFindings = new Set(findings.map(({ kind, name }) => `${kind}/${name}`)).size;
    const checked = report.checkedByNamespace.get(namespace) ?? 0;
    return {
      apiVersion: "wgpolicyk8s.io/v1alpha2",
      kind: "PolicyReport",
      metadata: {
        name: POLICY_REPORT_NAME,
        namespace,
        labels: { "app.kubernetes.io/managed-by": "cocoon-webhook" },
        annotations: { [POLICY_REPORT_SCOPE_ANNOTATION]: scope },
      },
      summary: {
        pass: Math.max(0, checked - withFindings),
        fail: results.filter((each) => each.result === "fail").length,
        warn: results.filter((each) => each.result === "warn").length,
        error: 0,
        skip: 0,
      },
      results,
    };
  });
  return { apiVersion: "v1", kind: "List", items };
}

function result(finding: AuditFinding, timestamp: { seconds: number; nanos: number }) {
  const { apiVersion, kind, namespace, name, uid } = finding;
  return {
    policy: POLICY,
    rule: finding.rule,
    ...RESULTS[finding.severity],
    category: kind,
    source: POLICY,
    scored: true,
    timestamp,
    message: located(finding),
    resources: [{ apiVersion, kind, namespace, name, ...(uid ? { uid } : {}) }],
    properties: { path: finding.path },
  };
}
