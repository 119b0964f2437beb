import { OPERATOR_USERNAME } from "../../src/cocoon/identities";
import type { AdmissionRequest } from "../../src/contract/admission-request";

/**
 * The one place tests, fuzzers, the chaos suite and the benchmark build
 * AdmissionReview bodies: `admissionRequest()` for a rule called directly,
 * `admissionReview()` for a body posted to the webhook.
 */

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export const POD_KIND: GroupVersionKind = { group: "", version: "v1", kind: "Pod" };
export const POD_RESOURCE: GroupVersionResource = { group: "", version: "v1", resource: "pods" };
export const BINDING_KIND: GroupVersionKind = { group: "", version: "v1", kind: "Binding" };
export const SCALE_KIND: GroupVersionKind = { group: "autoscaling", version: "v1", kind: "Scale" };
export const DEPLOYMENT_KIND: GroupVersionKind = {
  group: "apps",
  version: "v1",
  kind: "Deployment",
};
export const STATEFULSET_KIND: GroupVersionKind = {
  group: "apps",
  version: "v1",
  kind: "StatefulSet",
};
export const appsResource = (resource: string): GroupVersionResource => ({
  group: "apps",
  version: "v1",
  resource,
});
export const COCOONSET_KIND: GroupVersionKind = {
  group: "cocoonset.cocoonstack.io",
  version: "v1",
  kind: "CocoonSet",
};
export const COCOONSET_RESOURCE: GroupVersionResource = {
  group: "cocoonset.cocoonstack.io",
  version: "v1",
  resource: "cocoonsets",
};
export const HIBERNATION_KIND: GroupVersionKind = {
  group: "cocoonset.cocoonstack.io",
  version: "v1",
  kind: "CocoonHibernation",
};
export const HIBERNATION_RESOURCE: GroupVersionResource = {
  group: "cocoonset.cocoonstack.io",
  version: "v1",
  resource: "cocoonhibernations",
};

/** The owner reference the operator puts on the pods of CocoonSet "agents". */
export const COCOONSET_OWNER = {
  apiVersion: "cocoonset.cocoonstack.io/v1",
  kind: "CocoonSet",
  name: "agents",
  uid: "6d1f0a2e-0000-4000-8000-000000000001",
  controller: true,
};

/**
 * The fields of a request a rule reads, with every one a test does not care
 * about filled with something plausible: the operator creating in "default".
 */
export function admissionRequest(overrides: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return {
    uid: crypto.randomUUID(),
    operation: "CREATE",
    namespace: "default",
    userInfo: { username: OPERATOR_USERNAME },
    ...overrides,
  };
}

/** A request with every field the apiserver sends, the ones the webhook ignores included. */
export interface ApiserverRequest extends AdmissionRequest {
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  requestKind: GroupVersionKind;
  requestResource: GroupVersionResource;
  requestSubResource?: string;
  userInfo: { username?: string; uid?: string; groups?: string[] };
  dryRun: boolean;
  options: Record<string, unknown> | null;
}

export interface AdmissionReviewBody {
  apiVersion: string;
  kind: "AdmissionReview";
  request: ApiserverRequest;
}

export interface ReviewOptions extends Partial<ApiserverRequest> {
  /** admission.k8s.io/v1 unless given. */
  readonly apiVersion?: string;
  /** Who sends it (the operator's service account unless given); `userInfo` replaces it whole. */
  readonly username?: string;
}

const OPTIONS_KIND: Record<string, string> = {
  CREATE: "CreateOptions",
  UPDATE: "UpdateOptions",
  DELETE: "DeleteOptions",
};

/**
 * An AdmissionReview as the apiserver posts it: by default the operator
 * creating pod default/web-0 with no object. `requestKind`, `requestResource`
 * and `requestSubResource` follow `kind`, `resource` and `subResource` unless
 * given; a field given as undefined is left out of the JSON.
 */
export function admissionReview(options: ReviewOptions = {}): AdmissionReviewBody {
  const { apiVersion = "admission.k8s.io/v1", username, ...fields } = options;
  const kind = fields.kind ?? POD_KIND;
  const resource = fields.resource ?? POD_RESOURCE;
  const operation = fields.operation ?? "CREATE";
  const subResource = fields.subResource;
  const request: ApiserverRequest = {
    ...admissionRequest({ uid: fields.uid ?? crypto.randomUUID(), operation }),
    kind,
    resource,
    ...(subResource === undefined ? {} : { subResource, requestSubResource: subResource }),
    requestKind: kind,
    requestResource: resource,
    name: "web-0",
    userInfo: {
      username: username ?? OPERATOR_USERNAME,
      uid: "0d6f5c2e-1111-4b8e-9a53-6f3c1e0f0001",
      groups: ["system:serviceaccounts", "system:authenticated"],
    },
    object: null,
    oldObject: null,
    dryRun: false,
    options: { apiVersion: "meta.k8s.io/v1", kind: OPTIONS_KIND[operation] ?? "CreateOptions" },
    ...fields,
  };
  return { apiVersion, kind: "AdmissionReview", request };
}

/** A CocoonSet CREATE of team-a/`name` by alice, its `spec` as given. */
export function cocoonSetReview(spec: unknown, name = "agents"): AdmissionReviewBody {
  return admissionReview({
    kind: COCOONSET_KIND,
    resource: COCOONSET_RESOURCE,
    namespace: "team-a",
    name,
    username: "alice",
    object: {
      apiVersion: "cocoonset.cocoonstack.io/v1",
      kind: "CocoonSet",
      metadata: { name, namespace: "team-a" },
      spec,
    },
  });
}

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
): AdmissionReviewBody {
  const name = target.name ?? "agents";
  return admissionReview({
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

/** Alice creating pod default/hand-0 straight onto `nodeName`, unmarked: the gate GETs the node. */
export const podOnNodeReview = (nodeName: string): AdmissionReviewBody =>
  admissionReview({
    username: "alice",
    name: "hand-0",
    object: {
      metadata: { name: "hand-0", namespace: "default" },
      spec: { nodeName, containers: [{ name: "c", image: "busybox" }] },
    },
  });
