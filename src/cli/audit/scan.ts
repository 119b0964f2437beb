import { ENDPOINTS } from "../../admission/endpoints";
import type { PodCreators } from "../../cocoon/pod-creators";
import { errorText } from "../../echo";
import { type JsonObject, stringAt } from "../../json/read";
import { apiVersionOf } from "../../kube/api-resources";
import { KubeApiError } from "../../kube/kube-api";
import type { KubeLister } from "../../kube/list-stream";
import {
  type AuditFinding,
  cocoonSetFindings,
  HibernationAudit,
  podFindings,
  vmNodeNames,
  workloadFindings,
} from "./checks";
import {
  AUDITED_COCOONSETS,
  AUDITED_DEPLOYMENTS,
  AUDITED_HIBERNATIONS,
  AUDITED_NODES,
  AUDITED_PODS,
  AUDITED_RESOURCES,
  AUDITED_STATEFULSETS,
} from "./resources";

/** The account manifests/audit gives `cocoon-webhook audit` in the cluster: a 403 names it. */
export const AUDIT_ACCOUNT = {
  namespace: "cocoon-system",
  serviceAccount: "cocoon-webhook-audit",
  clusterRole: "cocoon-webhook-audit",
} as const;

/** What a 403 to audit's LIST of `plural` says to check, beside the apiserver's own message. */
function forbiddenAdvice(plural: string): string {
  const { namespace, serviceAccount, clusterRole } = AUDIT_ACCOUNT;
  return (
    `; audit needs list on ${plural}: in the cluster it runs as ServiceAccount ${namespace}/${serviceAccount}, ` +
    `bound to ClusterRole ${clusterRole} (manifests/audit); with a kubeconfig, as that kubeconfig's user`
  );
}

/** The kinds audit checks, in the order it lists them. */
export type AuditedKind = (typeof AUDITED_RESOURCES)[number]["kind"];
export const AUDITED_KINDS: readonly AuditedKind[] = AUDITED_RESOURCES.map(({ kind }) => kind);

/** The namespaces the pod gate's and the scale guard's registrations leave out: the webhook never sees them. */
export const UNGATED_NAMESPACES: ReadonlySet<string> = new Set(
  ENDPOINTS.podGate.registration.namespaceSelector.excluded,
);

/** Everything one audit found. */
export interface AuditReport {
  readonly findings: AuditFinding[];
  /** Objects checked per kind (partly, for a kind that could not be listed to the end). */
  readonly checked: Record<AuditedKind, number>;
  /** Namespaced objects checked per namespace: a PolicyReport for each. */
  readonly checkedByNamespace: Map<string, number>;
  /** `could not check Pods: …` for each kind whose LIST failed: the audit is incomplete (exit 2). */
  readonly problems: { readonly kind: AuditedKind; readonly message: string }[];
  /** Pods, Deployments and StatefulSets in namespaces the pod gate and scale guard leave out: not checked. */
  skipped: number;
  /** The one namespace audited (`--namespace`), or undefined when every namespace was. */
  readonly namespace: string | undefined;
}

export interface ScanOptions {
  readonly lister: KubeLister;
  readonly podCreators: PodCreators;
  /** One namespace, or every namespace when undefined. */
  readonly namespace?: string;
  /** Called after each page with the report so far (the terminal's progress line). */
  readonly progress?: (report: AuditReport) => void;
}

/**
 * Lists each kind page by page and checks every object as the webhook would
 * on CREATE, dropping each page once checked. A kind whose LIST fails is
 * reported as not checked; the others are still checked.
 */
export async function scanCluster(options: ScanOptions): Promise<AuditReport> {
  const report: AuditReport = {
    findings: [],
    checked: Object.fromEntries(AUDITED_KINDS.map((kind) => [kind, 0])) as AuditReport["checked"],
    checkedByNamespace: new Map(),
    problems: [],
    skipped: 0,
    namespace: options.namespace,
  };
  const each = async (
    resource: (typeof AUDITED_RESOURCES)[number],
    check: (item: JsonObject) => readonly AuditFinding[],
    excluded: ReadonlySet<string> = new Set(),
  ): Promise<boolean> => {
    const { kind } = resource;
    const namespace = resource.namespaced ? options.namespace : undefined;
    try {
      for await (const page of options.lister.pages(resource, namespace)) {
        for (const item of page) {
          if (excluded.has(stringAt(item, ["metadata", "namespace"]) ?? "")) {
            report.skipped++;
            continue;
          }
          report.findings.push(...check(item));
          report.checked[kind]++;
          if (resource.namespaced) countIn(report.checkedByNamespace, item);
        }
        options.progress?.(report);
        collectPastSoftLimit();
      }
      return true;
    } catch (error) {
      if (!(error instanceof KubeApiError)) throw error;
      const advice = error.status === 403 ? forbiddenAdvice(resource.plural) : "";
      report.problems.push({ kind, message: `${errorText(error)}${advice}` });
      return false;
    }
  };

  const vmNodes = new Set<string>();
  await each(AUDITED_NODES, (node) => {
    for (const name of vmNodeNames([node])) vmNodes.add(name);
    return [];
  });
  const cocoonSetVersion = apiVersionOf(AUDITED_COCOONSETS);
  await each(AUDITED_COCOONSETS, (set) => cocoonSetFindings(cocoonSetVersion, set));
  const hibernations = new HibernationAudit();
  const hibernationVersion = apiVersionOf(AUDITED_HIBERNATIONS);
  const listedAll = await each(AUDITED_HIBERNATIONS, (item) =>
    hibernations.check(hibernationVersion, item),
  );
  // An incomplete list would make the first one seen look like the original.
  if (listedAll) report.findings.push(...hibernations.conflicts());
  const podContext = { podCreators: options.podCreators, vmNodes };
  await each(AUDITED_PODS, (pod) => podFindings(pod, podContext), UNGATED_NAMESPACES);
  await each(
    AUDITED_DEPLOYMENTS,
    (workload) => workloadFindings("Deployment", workload),
    UNGATED_NAMESPACES,
  );
  await each(
    AUDITED_STATEFULSETS,
    (workload) => workloadFindings("StatefulSet", workload),
    UNGATED_NAMESPACES,
  );
  return report;
}

/**
 * The runtime collects lazily, so a long audit grows by pages it no longer
 * holds: past this size a full collection after a page brings it back to what
 * one page needs. Below it a collection per page would cost more than it saves.
 */
const SOFT_LIMIT_BYTES = 128 * 1024 * 1024;

function collectPastSoftLimit(): void {
  if (process.memoryUsage.rss() > SOFT_LIMIT_BYTES) Bun.gc(true);
}

function countIn(counts: Map<string, number>, item: JsonObject): void {
  const namespace = stringAt(item, ["metadata", "namespace"]) ?? "";
  counts.set(namespace, (counts.get(namespace) ?? 0) + 1);
}
