import { describe, expect, test } from "bun:test";
import { COCOONHIBERNATION_KIND } from "../../src/cocoon/crd-resources";
import { COCOON_TOLERATION_KEY } from "../../src/cocoon/markers";
import type { AdmissionRequest } from "../../src/contract/admission-request";
import { KubeApiError } from "../../src/contract/reads";
import type { Verdict } from "../../src/contract/verdict";
import { MESSAGE_PREFIX } from "../../src/http/review-answer";
import { admissionRequest } from "../support/admission-review";
import { FakeKube } from "../support/fake-kube";
import { examine, refusalMessage } from "../support/handlers";

const NAMESPACE = "agents";
const NAME = "agent";
const UNREACHABLE = "connect ECONNREFUSED 10.96.0.1:443";

const cocoonToleration = { key: COCOON_TOLERATION_KEY, operator: "Exists", effect: "NoSchedule" };

/** A Deployment/StatefulSet; `replicas` and `tolerations` are omitted when undefined. */
function workload(kind: string, replicas: unknown, tolerations?: unknown) {
  return {
    apiVersion: "apps/v1",
    kind,
    metadata: { name: NAME, namespace: NAMESPACE },
    spec: {
      replicas,
      selector: { matchLabels: { app: NAME } },
      template: {
        metadata: { labels: { app: NAME } },
        spec: { containers: [{ name: NAME, image: "agent:1" }], tolerations },
      },
    },
  };
}

const cocoonDeployment = (replicas?: unknown) =>
  workload("Deployment", replicas, [cocoonToleration]);
const plainDeployment = (replicas?: unknown) => workload("Deployment", replicas);
const keylessExistsDeployment = (replicas?: unknown) =>
  workload("Deployment", replicas, [{ operator: "Exists" }]);
const cocoonStatefulSet = (replicas?: unknown) =>
  workload("StatefulSet", replicas, [cocoonToleration]);

/** An autoscaling/v1 Scale; `replicas` undefined gives `spec: {}` as the apiserver sends for 0. */
const scale = (replicas?: unknown) => ({
  apiVersion: "autoscaling/v1",
  kind: "Scale",
  metadata: { name: NAME, namespace: NAMESPACE },
  spec: replicas === undefined ? {} : { replicas },
});

function scaleRequest(oldObject: unknown, object: unknown, resource = "deployments") {
  return admissionRequest({
    operation: "UPDATE",
    kind: { kind: "Scale" },
    resource: { resource },
    subResource: "scale",
    namespace: NAMESPACE,
    name: NAME,
    oldObject,
    object,
  });
}

function updateRequest(oldObject: unknown, object: unknown, kind = "Deployment") {
  const resource = `${kind.toLowerCase()}s`;
  return admissionRequest({
    operation: "UPDATE",
    kind: { kind },
    resource: { resource },
    namespace: NAMESPACE,
    name: NAME,
    oldObject,
    object,
  });
}

const updateStatefulSet = (oldObject: unknown, object: unknown) =>
  updateRequest(oldObject, object, "StatefulSet");

const label = (verdict: Verdict) => `${verdict.result}/${verdict.reason}`;

/** The apiserver as a case sees it: unreachable, or serving the parent (`absent` for a 404). */
type Parent =
  | "unreachable"
  | "absent"
  | { readonly resource: "deployments" | "statefulsets"; readonly object: unknown };

function kubeServing(parent: Parent): FakeKube {
  if (parent === "unreachable") return new FakeKube().failing(UNREACHABLE);
  if (parent === "absent") return new FakeKube();
  return new FakeKube().withWorkload(parent.resource, NAMESPACE, NAME, parent.object);
}

const deploymentParent = (object: unknown): Parent => ({ resource: "deployments", object });
const statefulSetParent = (object: unknown): Parent => ({ resource: "statefulsets", object });

/** Turns `{ "result/reason": { "case name": row } }` into named cases for `test.each`. */
function cases<Row>(table: Record<string, Record<string, Row>>) {
  return Object.entries(table).flatMap(([expected, rows]) =>
    Object.entries(rows).map(([name, row]) => ({ name, expected, row })),
  );
}

const down = scaleRequest(scale(3), scale(1));

/** Rows that must decide without asking the apiserver (it is unreachable in these cases). */
const offlineTable: Record<string, Record<string, AdmissionRequest>> = {
  "skipped/operation": {
    CREATE: { ...updateRequest(undefined, cocoonDeployment(1)), operation: "CREATE" },
    DELETE: { ...updateRequest(cocoonDeployment(3), undefined), operation: "DELETE" },
    CONNECT: admissionRequest({ operation: "CONNECT" }),
    "DELETE through /scale": { ...down, operation: "DELETE" },
  },
  "skipped/decode": {
    "scale: old Scale null": scaleRequest(null, scale(1)),
    "scale: new Scale a string": scaleRequest(scale(3), "garbage"),
    "scale: replicas a string": scaleRequest(scale("3"), scale(1)),
    "scale: spec an array": scaleRequest({ spec: [] }, scale(1)),
    "update: old object null": updateRequest(null, cocoonDeployment(1)),
    "update: new replicas a string": updateRequest(cocoonDeployment(3), cocoonDeployment("1")),
  },
  "skipped/kind": {
    "scale: replicasets": scaleRequest(scale(3), scale(1), "replicasets"),
    "update: a ReplicaSet": updateRequest(cocoonDeployment(3), cocoonDeployment(1), "ReplicaSet"),
    "update: no kind": {
      ...updateRequest(cocoonDeployment(3), cocoonDeployment(1)),
      kind: undefined,
    },
  },
  "skipped/not_cocoon": {
    "update: plain Deployment 3 → 1": updateRequest(plainDeployment(3), plainDeployment(1)),
    "update: toleration added while scaling down": updateRequest(
      plainDeployment(3),
      cocoonDeployment(1),
    ),
    "update: keyless Exists template": updateRequest(
      keylessExistsDeployment(3),
      plainDeployment(1),
    ),
  },
  "allow/": {
    "scale: up 1 → 3": scaleRequest(scale(1), scale(3)),
    "scale: unchanged 2 → 2": scaleRequest(scale(2), scale(2)),
    "scale: up from spec: {} (0) → 2": scaleRequest(scale(), scale(2)),
    "scale: spec: {} → spec: {}": scaleRequest(scale(), scale()),
    "scale: statefulsets up 0 → 1": scaleRequest(scale(0), scale(1), "statefulsets"),
    "update: up 1 → 3": updateRequest(cocoonDeployment(1), cocoonDeployment(3)),
    "update: StatefulSet unchanged 2 → 2": updateStatefulSet(
      cocoonStatefulSet(2),
      cocoonStatefulSet(2),
    ),
    "update: missing → missing (1 → 1)": updateRequest(cocoonDeployment(), cocoonDeployment()),
    "update: 1 → missing (1)": updateRequest(cocoonDeployment(1), cocoonDeployment()),
  },
  "deny/scale_down": {
    "update: Deployment 3 → 1": updateRequest(cocoonDeployment(3), cocoonDeployment(1)),
    "update: StatefulSet 2 → 0": updateStatefulSet(cocoonStatefulSet(2), cocoonStatefulSet(0)),
    "update: missing (1) → 0": updateRequest(cocoonDeployment(), cocoonDeployment(0)),
    "update: 3 → missing (1)": updateRequest(cocoonDeployment(3), cocoonDeployment()),
    "update: toleration dropped while scaling down": updateRequest(
      cocoonDeployment(3),
      plainDeployment(1),
    ),
  },
};

/** Scale-downs through `/scale`, the only path that reads the parent: [request, apiserver]. */
const parentTable: Record<string, Record<string, readonly [AdmissionRequest, Parent]>> = {
  "deny/scale_down": {
    "cocoon Deployment, 3 → 1": [down, deploymentParent(cocoonDeployment(3))],
    "cocoon Deployment, 3 → spec: {} (0)": [
      scaleRequest(scale(3), scale()),
      deploymentParent(cocoonDeployment(3)),
    ],
    "cocoon StatefulSet, 2 → 1": [
      scaleRequest(scale(2), scale(1), "statefulsets"),
      statefulSetParent(cocoonStatefulSet(2)),
    ],
  },
  "skipped/not_cocoon": {
    "plain Deployment": [down, deploymentParent(plainDeployment(3))],
    "keyless Exists template": [down, deploymentParent(keylessExistsDeployment(3))],
  },
  "skipped/no_parent": {
    "parent 404": [down, "absent"],
  },
  "error/parent_fetch": {
    "apiserver unreachable": [down, "unreachable"],
    "apiserver unreachable, down to spec: {}": [scaleRequest(scale(1), scale()), "unreachable"],
    // A parent answer that is not a workload is untrusted, never "not cocoon".
    "parent undecodable": [down, deploymentParent("garbage")],
    "parent tolerations written as an object": [
      down,
      deploymentParent({
        spec: { template: { spec: { tolerations: { key: "virtual-kubelet.io/provider" } } } },
      }),
    ],
  },
};

describe("/validate scale guard, case by case", () => {
  test.each(cases(offlineTable))(
    "$expected: $name, without an apiserver call",
    async ({ row: request, expected }) => {
      const kube = kubeServing("unreachable");
      const verdict = await examine("scaleGuard", request, { kube });
      expect(label(verdict)).toBe(expected);
      expect(verdict.allowed).toBe(!expected.startsWith("deny/"));
      expect(kube.calls).toEqual([]);
    },
  );

  test.each(cases(parentTable))(
    "$expected: $name",
    async ({ row: [request, parent], expected }) => {
      const kube = kubeServing(parent);
      const verdict = await examine("scaleGuard", request, { kube });
      expect(label(verdict)).toBe(expected);
      expect(verdict.allowed).toBe(expected.startsWith("skipped/"));
      expect(kube.calls).toEqual([
        {
          verb: "get",
          resource: request.resource?.resource ?? "",
          namespace: NAMESPACE,
          name: NAME,
        },
      ]);
    },
  );

  test("a scale-down whose request names no workload fails closed without a call", async () => {
    const kube = kubeServing("absent");
    const verdict = await examine("scaleGuard", { ...down, name: undefined }, { kube });
    expect(label(verdict)).toBe("error/parent_fetch");
    expect(refusalMessage(verdict)).toContain("cannot verify parent workload");
    expect(kube.calls).toEqual([]);
  });

  test("an error that is not a KubeApiError is left to the review, as an internal error", async () => {
    const kube = new FakeKube();
    kube.get = () => Promise.reject(new TypeError("bug"));
    await expect(examine("scaleGuard", down, { kube })).rejects.toThrow("bug");
  });
});

describe("/validate scale guard messages", () => {
  test.each<[string, AdmissionRequest, string[]]>([
    [
      "scale_down through /scale",
      scaleRequest(scale(3), scale()),
      [
        "Deployment agents/agent",
        "from 3 to 0",
        "spec.replicas",
        COCOONHIBERNATION_KIND,
        COCOON_TOLERATION_KEY,
      ],
    ],
    [
      "scale_down by direct UPDATE",
      updateRequest(cocoonStatefulSet(2), cocoonStatefulSet(1), "StatefulSet"),
      ["StatefulSet agents/agent", "from 2 to 1", "spec.replicas", COCOONHIBERNATION_KIND],
    ],
  ])("%s", async (_name, request, mentions) => {
    const kube = kubeServing(deploymentParent(cocoonDeployment(3)));
    const message = refusalMessage(await examine("scaleGuard", request, { kube }));
    for (const mention of mentions) expect(message).toContain(mention);
    expect(message.startsWith(MESSAGE_PREFIX)).toBe(false);
  });

  test.each<[string, KubeApiError]>([
    ["network error", new KubeApiError(UNREACHABLE)],
    ["timeout", new KubeApiError("GET deployments agents/agent timed out after 3000ms")],
    ["403", new KubeApiError('deployments.apps "agent" is forbidden', 403)],
    ["500", new KubeApiError("internal error", 500)],
    ["no Kubernetes API configured", new KubeApiError("no Kubernetes API configured")],
  ])("parent_fetch on %s names the workload and the cause", async (_name, failure) => {
    const kube = new FakeKube();
    kube.fail = failure;
    const verdict = await examine("scaleGuard", down, { kube });
    expect(label(verdict)).toBe("error/parent_fetch");
    expect(verdict.allowed).toBe(false);
    for (const mention of [
      "cannot verify parent workload",
      "Deployment agents/agent",
      failure.message,
      "retry",
    ]) {
      expect(refusalMessage(verdict)).toContain(mention);
    }
  });
});
