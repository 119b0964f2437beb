/** AdmissionReview bodies shaped like the apiserver's. */
export interface ReviewOptions {
  readonly apiVersion?: string;
  readonly uid?: string;
  readonly operation?: string;
  readonly kind?: { group: string; version: string; kind: string };
  readonly resource?: { group: string; version: string; resource: string };
  readonly subResource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly username?: string;
  readonly object?: unknown;
  readonly oldObject?: unknown;
}

export const POD_KIND = { group: "", version: "v1", kind: "Pod" };
export const POD_RESOURCE = { group: "", version: "v1", resource: "pods" };

export function review(options: ReviewOptions = {}) {
  const kind = options.kind ?? POD_KIND;
  const resource = options.resource ?? POD_RESOURCE;
  return {
    apiVersion: options.apiVersion ?? "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: options.uid ?? crypto.randomUUID(),
      kind,
      resource,
      ...(options.subResource ? { subResource: options.subResource } : {}),
      requestKind: kind,
      requestResource: resource,
      name: options.name ?? "web-0",
      namespace: options.namespace ?? "default",
      operation: options.operation ?? "CREATE",
      userInfo: {
        username: options.username ?? "system:serviceaccount:cocoon-system:cocoon-operator",
        uid: "0d6f5c2e-1111-4b8e-9a53-6f3c1e0f0001",
        groups: ["system:serviceaccounts", "system:authenticated"],
      },
      object: options.object ?? null,
      oldObject: options.oldObject ?? null,
      dryRun: false,
      options: { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" },
    },
  };
}
