import {
  COCOON_TOLERATION_KEY,
  OPERATOR_USERNAME,
  VM_NAME_ANNOTATION,
} from "../../src/cocoon/keys";
import { review } from "../e2e/reviews";

/** Review bodies for each handler, shaped like the apiserver's; each call has a fresh uid. */

const SCALE_KIND = { group: "autoscaling", version: "v1", kind: "Scale" };
const DEPLOYMENTS = { group: "apps", version: "v1", resource: "deployments" };
const COCOONSET_KIND = { group: "cocoonset.cocoonstack.io", version: "v1", kind: "CocoonSet" };
const COCOONSETS = { group: "cocoonset.cocoonstack.io", version: "v1", resource: "cocoonsets" };
const HIBERNATION_KIND = {
  group: "cocoonset.cocoonstack.io",
  version: "v1",
  kind: "CocoonHibernation",
};
const HIBERNATIONS = {
  group: "cocoonset.cocoonstack.io",
  version: "v1",
  resource: "cocoonhibernations",
};

export type Review = ReturnType<typeof review>;

export function cocoonWorkload(replicas: number) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "agents", namespace: "team-a" },
    spec: {
      replicas,
      template: {
        spec: {
          containers: [{ name: "agent", image: "agent:1" }],
          tolerations: [{ key: COCOON_TOLERATION_KEY, operator: "Exists" }],
        },
      },
    },
  };
}

const scale = (replicas: number) => ({
  apiVersion: "autoscaling/v1",
  kind: "Scale",
  metadata: { name: "agents", namespace: "team-a" },
  spec: replicas === 0 ? {} : { replicas },
});

/** `kubectl scale deployment/agents --replicas=to` (from `from`). */
export const scaleReview = (from: number, to: number, name = "agents"): Review =>
  review({
    operation: "UPDATE",
    kind: SCALE_KIND,
    resource: DEPLOYMENTS,
    subResource: "scale",
    namespace: "team-a",
    name,
    username: "alice",
    object: scale(to),
    oldObject: scale(from),
  });

/** The operator creating a gated, CocoonSet-owned pod: allowed. */
export const gatedPodReview = (): Review =>
  review({
    namespace: "team-a",
    name: "demo-0",
    username: OPERATOR_USERNAME,
    object: {
      metadata: {
        name: "demo-0",
        namespace: "team-a",
        annotations: { [VM_NAME_ANNOTATION]: "vk-team-a-demo-0" },
        ownerReferences: [
          { apiVersion: "cocoonset.cocoonstack.io/v1", kind: "CocoonSet", name: "demo", uid: "1" },
        ],
      },
      spec: {
        containers: [{ name: "agent", image: "cocoonstack/agent:1.0" }],
        tolerations: [{ key: COCOON_TOLERATION_KEY, operator: "Exists", effect: "NoSchedule" }],
      },
    },
  });

/** A user hand-making a gated pod: denied. */
export const handMadeGatedPodReview = (): Review =>
  review({
    namespace: "team-a",
    name: "sneaky",
    username: "mallory",
    object: {
      metadata: { name: "sneaky", namespace: "team-a" },
      spec: {
        containers: [{ name: "agent", image: "agent:1" }],
        tolerations: [{ key: COCOON_TOLERATION_KEY, operator: "Exists" }],
      },
    },
  });

export const cocoonSetObject = () => ({
  apiVersion: "cocoonset.cocoonstack.io/v1",
  kind: "CocoonSet",
  metadata: { name: "demo", namespace: "team-a" },
  spec: {
    agent: { image: "cocoonstack/agent:1.0", replicas: 2 },
    toolboxes: [
      { name: "browser", image: "cocoonstack/browser:1" },
      { name: "win", mode: "static", staticIP: "10.0.0.9", staticVMID: "vm-9", connType: "rdp" },
    ],
    snapshotPolicy: "always",
  },
});

export const cocoonSetReview = (): Review =>
  review({
    kind: COCOONSET_KIND,
    resource: COCOONSETS,
    namespace: "team-a",
    name: "demo",
    username: "alice",
    object: cocoonSetObject(),
  });

export const hibernationObject = (pod = "demo-0") => ({
  apiVersion: "cocoonset.cocoonstack.io/v1",
  kind: "CocoonHibernation",
  metadata: { name: pod, namespace: "team-a" },
  spec: { desire: "Hibernate", podRef: { name: pod } },
});

export const hibernationReview = (pod = "demo-0"): Review =>
  review({
    kind: HIBERNATION_KIND,
    resource: HIBERNATIONS,
    namespace: "team-a",
    name: pod,
    username: "alice",
    object: hibernationObject(pod),
  });
