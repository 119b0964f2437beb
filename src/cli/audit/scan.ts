import type { KubeLister } from "../../apiserver/client";
import { errorText } from "../../bounded-text";
import { KubeApiError } from "../../contract/reads";
import { ENDPOINTS } from "../../endpoints";
import {
  COCOONSET_OWNER,
  type PodCreators,
  SANDBOX_OWNER,
} from "../../endpoints/pod-gate/creators";
import { type JsonObject, stringAt } from "../../json/read";
import { apiVersionOf } from "../../kube/api-resources";
import { collectorPastSoftLimit } from "../subcommand";
import {
  type AuditFinding,
  cocoonSetFindings,
  HibernationAudit,
  podFindings,
  vmNodeNames,
  workloadFindings,
} from "./checks";
import { OwnerIndex } from "./owners";
import {
  AUDITED_COCOONSETS,
  AUDITED_DEPLOYMENTS,
  AUDITED_HIBERNATIONS,
  AUDITED_NODES,
  AUDITED_PODS,
  AUDITED_RESOURCES,
  AUDITED_SANDBOXES,
  AUDITED_SANDBOXES_V1ALPHA1,
  AUDITED_STATEFULSETS,
} from "./resources";

/** The account manifests/audit gives `cocoon-webhook audit` in the cluster: a 403 names it. */
export const AUDIT_ACCOUNT = {
  namespace: "cocoon-system",
  serviceAccount: "cocoon-webhook-audit",
  clusterRole: "cocoon-webhook-audit",
} as const;

function forbiddenAdvice(plural: string): string {
  const { namespace, serviceAccount, clusterRole } = AUDIT_ACCOUNT;
  return (
    `; audit needs list on ${plural}: in the cluster it runs as ServiceAccount ${namespace}/${serviceAccount}, ` +
    `bound to ClusterRole ${clusterRole} (manifests/audit); with a kubeconfig, as that kubeconfig's user`
  );
}

export type AuditedKind = (typeof AUDITED_RESOURCES)[number]["kind"];
export const AUDITED_KINDS: readonly AuditedKind[] = AUDITED_RESOURCES.map(({ kind }) => kind);

const UNGATED_NAMESPACES: ReadonlySet<string> = new Set(
  ENDPOINTS.podGate.registration.namespaceSelector.excluded,
);

export interface AuditReport {
  readonly findings: AuditFinding[];
  /** Objects checked per kind (partly, for a kind that could not be listed to the end). */
  readonly checked: Record<AuditedKind, number>;
  /** Namespaced objects checked per namespace: a PolicyReport for each. */
  readonly checkedByNamespace: Map<string, number>;
  /** Each kind whose LIST failed or ran out of time: the audit is incomplete (exit 2). */
  readonly problems: { readonly kind: AuditedKind; readonly message: string }[];
  /** Objects in namespaces the webhook's registrations leave out. */
  skipped: number;
  readonly namespace: string | undefined;
}

export interface ScanOptions {
  readonly lister: KubeLister;
  readonly podCreators: PodCreators;
  readonly namespace?: string;
  readonly progress?: (report: AuditReport) => void;
  /** Checked before each page: a run ends within it plus one APISERVER_TIMEOUT. */
  readonly timeLimitMs: number;
  readonly now?: () => number;
}

class OutOfTime extends Error {}

export async function scanCluster(options: ScanOptions): Promise<AuditReport> {
  const report: AuditReport = {
    findings: [],
    checked: Object.fromEntries(AUDITED_KINDS.map((kind) => [kind, 0])) as AuditReport["checked"],
    checkedByNamespace: new Map(),
    problems: [],
    skipped: 0,
    namespace: options.namespace,
  };
  const collectPastSoftLimit = collectorPastSoftLimit();
  const now = options.now ?? (() => performance.now());
  const deadline = now() + options.timeLimitMs;
  const outOfTime = (pages: number) =>
    new OutOfTime(
      `the audit did not finish within --timeout (${options.timeLimitMs} ms)${pages > 0 ? ` after ${pages} pages of this kind` : ""}; ` +
        "give it more time, or audit one namespace at a time (--namespace)",
    );
  const each = async (
    resource: (typeof AUDITED_RESOURCES)[number] | typeof AUDITED_SANDBOXES_V1ALPHA1,
    check: (item: JsonObject) => readonly AuditFinding[],
    {
      excluded = new Set(),
      optional = false,
      judged = true,
    }: { excluded?: ReadonlySet<string>; optional?: boolean; judged?: boolean } = {},
  ): Promise<"listed" | "failed" | "not_served"> => {
    const { kind } = resource;
    const namespace = resource.namespaced ? options.namespace : undefined;
    let pages = 0;
    try {
      if (now() > deadline) throw outOfTime(pages);
      for await (const page of options.lister.pages(resource, namespace)) {
        pages++;
        for (const item of page) {
          if (excluded.has(stringAt(item, ["metadata", "namespace"]) ?? "")) {
            report.skipped++;
            continue;
          }
          report.findings.push(...check(item));
          report.checked[kind]++;
          if (resource.namespaced && judged) countIn(report.checkedByNamespace, item);
        }
        options.progress?.(report);
        collectPastSoftLimit();
        if (now() > deadline) throw outOfTime(pages);
      }
      return "listed";
    } catch (error) {
      if (!(error instanceof KubeApiError || error instanceof OutOfTime)) throw error;
      if (optional && error instanceof KubeApiError && error.status === 404) return "not_served";
      const forbidden = error instanceof KubeApiError && error.status === 403;
      const advice = forbidden ? forbiddenAdvice(resource.plural) : "";
      report.problems.push({ kind, message: `${errorText(error)}${advice}` });
      return "failed";
    }
  };

  const vmNodes = new Set<string>();
  await each(AUDITED_NODES, (node) => {
    for (const name of vmNodeNames([node])) vmNodes.add(name);
    return [];
  });
  const owners = new OwnerIndex();
  const cocoonSetVersion = apiVersionOf(AUDITED_COCOONSETS);
  const setsListed = await each(AUDITED_COCOONSETS, (set) => {
    owners.add(COCOONSET_OWNER, set);
    return cocoonSetFindings(cocoonSetVersion, set);
  });
  if (setsListed === "listed") owners.listedAll(COCOONSET_OWNER);
  // Sandboxes, v1beta1 else v1alpha1, for their pods' owner references; neither served: none exist.
  const addSandbox = (sandbox: JsonObject) => {
    owners.add(SANDBOX_OWNER, sandbox);
    return [];
  };
  let sandboxes: Awaited<ReturnType<typeof each>> = "not_served";
  for (const resource of [AUDITED_SANDBOXES, AUDITED_SANDBOXES_V1ALPHA1]) {
    sandboxes = await each(resource, addSandbox, { optional: true, judged: false });
    if (sandboxes !== "not_served") break;
  }
  if (sandboxes !== "failed") owners.listedAll(SANDBOX_OWNER);
  const hibernations = new HibernationAudit();
  const hibernationVersion = apiVersionOf(AUDITED_HIBERNATIONS);
  const listedAll = await each(AUDITED_HIBERNATIONS, (item) =>
    hibernations.check(hibernationVersion, item),
  );
  // An incomplete list would make the first one seen look like the original.
  if (listedAll === "listed") report.findings.push(...hibernations.conflicts());
  const podContext = { podCreators: options.podCreators, vmNodes, owners };
  await each(AUDITED_PODS, (pod) => podFindings(pod, podContext), {
    excluded: UNGATED_NAMESPACES,
  });
  await each(AUDITED_DEPLOYMENTS, (workload) => workloadFindings("Deployment", workload), {
    excluded: UNGATED_NAMESPACES,
  });
  await each(AUDITED_STATEFULSETS, (workload) => workloadFindings("StatefulSet", workload), {
    excluded: UNGATED_NAMESPACES,
  });
  return report;
}

function countIn(counts: Map<string, number>, item: JsonObject): void {
  const namespace = stringAt(item, ["metadata", "namespace"]) ?? "";
  counts.set(namespace, (counts.get(namespace) ?? 0) + 1);
}
