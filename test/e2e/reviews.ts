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

export const SCALE_KIND = { group: "autoscaling", version: "v1", kind: "Scale" };
export const DEPLOYMENT_KIND = { group: "apps", version: "v1", kind: "Deployment" };
export const STATEFULSET_KIND = { group: "apps", version: "v1", kind: "StatefulSet" };
export const appsResource = (resource: "deployments" | "statefulsets") => ({
  group: "apps",
  version: "v1",
  resource,
});

/** A Deployment in team-a; `replicas` undefined leaves the field out (the apiserver's default is 1). */
export function workloadObject(replicas: number | undefined, cocoon: boolean, name = "agents") {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "team-a" },
    spec: {
      ...(replicas === undefined ? {} : { replicas }),
      template: {
        spec: {
          containers: [{ name: "agent", image: "agent:1" }],
          tolerations: cocoon ? [{ key: "virtual-kubelet.io/provider", operator: "Exists" }] : [],
        },
      },
    },
  };
}

/** A Scale as the apiserver sends it: `replicas: 0` is omitted, so `--replicas=0` arrives as `spec: {}`. */
export const scaleObject = (replicas: number, name = "agents") => ({
  apiVersion: "autoscaling/v1",
  kind: "Scale",
  metadata: { name, namespace: "team-a" },
  spec: replicas === 0 ? {} : { replicas },
});

/** `kubectl scale <resource>/<name> --replicas=<to>` from `from` replicas, by alice in team-a. */
export function scaleReview(
  from: number,
  to: number,
  target: { resource?: "deployments" | "statefulsets"; name?: string } = {},
) {
  const name = target.name ?? "agents";
  return review({
    operation: "UPDATE",
    kind: SCALE_KIND,
    resource: appsResource(target.resource ?? "deployments"),
    subResource: "scale",
    namespace: "team-a",
    name,
    username: "alice",
    object: scaleObject(to, name),
    oldObject: scaleObject(from, name),
  });
}
