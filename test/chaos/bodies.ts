import { OPERATOR_USERNAME } from "../../src/cocoon/identities";
import { COCOON_TOLERATION_KEY, VM_NAME_ANNOTATION } from "../../src/cocoon/markers";
import {
  type AdmissionReviewBody,
  admissionReview,
  COCOONSET_KIND,
  COCOONSET_RESOURCE,
  HIBERNATION_KIND,
  HIBERNATION_RESOURCE,
  workloadObject,
} from "../support/admission-review";

/** Review bodies for each handler, shaped like the apiserver's; each call has a fresh uid. */

/** The cocoon Deployment team-a/agents the fake apiserver serves as the /scale parent. */
export const cocoonWorkload = (replicas: number) => workloadObject(replicas, true);

/** The operator creating a gated, CocoonSet-owned pod: allowed. */
export const gatedPodReview = (): AdmissionReviewBody =>
  admissionReview({
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
export const handMadeGatedPodReview = (): AdmissionReviewBody =>
  admissionReview({
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

export const cocoonSetReview = (): AdmissionReviewBody =>
  admissionReview({
    kind: COCOONSET_KIND,
    resource: COCOONSET_RESOURCE,
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

export const hibernationReview = (pod = "demo-0"): AdmissionReviewBody =>
  admissionReview({
    kind: HIBERNATION_KIND,
    resource: HIBERNATION_RESOURCE,
    namespace: "team-a",
    name: pod,
    username: "alice",
    object: hibernationObject(pod),
  });
