import { describe, expect, test } from "bun:test";
import type { AdmissionRequest } from "../../src/admission/review";
import type { Verdict } from "../../src/admission/verdict";
import {
  COCOON_TOLERATION_KEY,
  COCOONSET_KIND,
  MESSAGE_PREFIX,
  OPERATOR_USERNAME,
  VM_NAME_ANNOTATION,
} from "../../src/cocoon/keys";
import { podGate } from "../../src/rules/pod-gate";
import { admissionRequest } from "../support/requests";

const ALICE = "alice@example.com";
const VK_COCOON = "system:serviceaccount:cocoon-system:vk-cocoon";
const OPERATOR_ONLY: ReadonlySet<string> = new Set([OPERATOR_USERNAME]);

const cocoonToleration = { key: COCOON_TOLERATION_KEY, operator: "Exists", effect: "NoSchedule" };
const cocoonSetOwner = {
  apiVersion: "cocoonset.cocoonstack.io/v1",
  kind: COCOONSET_KIND,
  name: "demo",
  uid: "u1",
  controller: true,
};
const rsOwner = { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-5d9", uid: "u2" };
const jobOwner = { apiVersion: "batch/v1", kind: "Job", name: "once", uid: "u3" };

interface PodFields {
  tolerations?: unknown;
  annotations?: unknown;
  ownerReferences?: unknown;
  containers?: unknown[];
}

function pod({ tolerations, annotations, ownerReferences, containers }: PodFields = {}) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "demo-0", namespace: "default", annotations, ownerReferences },
    spec: { containers: containers ?? [{ name: "agent", image: "agent:1" }], tolerations },
  };
}

/** What the operator creates: both markers and a CocoonSet owner. */
const operatorPod = pod({
  tolerations: [cocoonToleration],
  annotations: { [VM_NAME_ANNOTATION]: "vk-default-demo-0" },
  ownerReferences: [cocoonSetOwner],
});
const plainPod = pod();
const tolerationOnly = pod({ tolerations: [{ key: COCOON_TOLERATION_KEY, operator: "Exists" }] });
const annotationOnly = pod({ annotations: { [VM_NAME_ANNOTATION]: "" } });

/** ~1 MB: 50 containers with long env lists; the cocoon toleration sits after all of them. */
function hugePod(fields: PodFields): unknown {
  const env = Array.from({ length: 100 }, (_, i) => ({ name: `VAR_${i}`, value: "x".repeat(200) }));
  const containers = Array.from({ length: 50 }, (_, i) => ({
    name: `c${i}`,
    image: "agent:1",
    env,
  }));
  return JSON.parse(JSON.stringify(pod({ ...fields, containers })));
}

function podRequest(overrides: Partial<AdmissionRequest>, username = OPERATOR_USERNAME) {
  return admissionRequest({
    kind: { kind: "Pod" },
    resource: { resource: "pods" },
    name: "demo-0",
    userInfo: { username },
    ...overrides,
  });
}

const create = (object: unknown, username?: string) =>
  podRequest({ operation: "CREATE", object }, username);

const update = (oldObject: unknown, object: unknown, username?: string) =>
  podRequest({ operation: "UPDATE", oldObject, object }, username);

const label = (verdict: Verdict) => `${verdict.result}/${verdict.reason}`;

const deploymentKind = { group: "apps", version: "v1", kind: "Deployment" };
const cocoon = [cocoonToleration];
const owned = [cocoonSetOwner];
const unreadableMarkers = pod({ tolerations: "x", annotations: 5 });
const keylessExistsPod = pod({ tolerations: [{ operator: "Exists" }] });

/** Every row of the SPEC §4 table, keyed by the expected `result/reason`, then by case name. */
const gateTable: Record<string, Record<string, AdmissionRequest>> = {
  "skipped/kind": {
    "a Deployment": podRequest({ kind: deploymentKind, object: operatorPod }),
    "no kind": podRequest({ kind: undefined, object: operatorPod }),
    "kind differs in case": podRequest({
      kind: { kind: "pod" },
      object: operatorPod,
    }),
  },
  "skipped/operation": {
    DELETE: podRequest({ operation: "DELETE", oldObject: operatorPod }, ALICE),
    CONNECT: podRequest({ operation: "CONNECT", object: {} }, ALICE),
    "no operation": podRequest({ operation: undefined, object: tolerationOnly }, ALICE),
  },
  "skipped/decode": {
    "object missing": create(undefined, ALICE),
    "object null": create(null, ALICE),
    "object a string": create("garbage", ALICE),
    "object an array": create([operatorPod], ALICE),
    "both marker fields malformed": create(unreadableMarkers, ALICE),
    "UPDATE to an undecodable object": update(plainPod, 42, ALICE),
  },
  "skipped/not_cocoon": {
    "plain pod": create(plainPod, ALICE),
    "empty object": create({}, ALICE),
    "keyless Exists toleration (known limit)": create(keylessExistsPod, ALICE),
    "unrelated toleration": create(pod({ tolerations: [{ key: "dedicated" }] }), ALICE),
    "CocoonSet owner without markers": create(pod({ ownerReferences: owned }), ALICE),
    "UPDATE that drops the markers": update(operatorPod, plainPod, ALICE),
    "1 MB pod without markers": create(hugePod({}), ALICE),
  },
  "skipped/no_change": {
    "vk-cocoon patches a gated pod": update(operatorPod, operatorPod, VK_COCOON),
    "a user patches a gated pod that has no owner": update(annotationOnly, annotationOnly, ALICE),
    "old gated by annotation, new by toleration": update(annotationOnly, tolerationOnly, ALICE),
  },
  "deny/not_owned": {
    "toleration Exists without value": create(tolerationOnly),
    "annotation with empty value": create(annotationOnly),
    "owners, none a CocoonSet": create(
      pod({ tolerations: cocoon, ownerReferences: [rsOwner, jobOwner] }),
    ),
    "ownerReferences a string": create(
      pod({ tolerations: cocoon, ownerReferences: COCOONSET_KIND }),
    ),
    "ownerReferences entries malformed": create(
      pod({ tolerations: cocoon, ownerReferences: [null, { kind: 7 }] }),
    ),
    "annotations a number, tolerations carry the key": create(
      pod({ tolerations: cocoon, annotations: 5 }),
    ),
    "malformed toleration beside a cocoon one": create(
      pod({ tolerations: [{ key: 1 }, cocoonToleration] }),
    ),
    "UPDATE newly adds the annotation": update(plainPod, annotationOnly),
    "1 MB pod without owner": create(hugePod({ tolerations: cocoon })),
  },
  "deny/creator": {
    "forged CocoonSet owner from another user": create(operatorPod, ALICE),
    "no userInfo": podRequest({ operation: "CREATE", object: operatorPod, userInfo: undefined }),
    "UPDATE newly adds the toleration": update(plainPod, operatorPod, ALICE),
    "UPDATE, old undecodable counts as not gated": update("garbage", operatorPod, ALICE),
    "UPDATE, old markers unreadable counts as not gated": update(
      unreadableMarkers,
      operatorPod,
      ALICE,
    ),
    "UPDATE, old missing counts as not gated": update(undefined, operatorPod, VK_COCOON),
    "UPDATE from a keyless Exists pod": update(keylessExistsPod, operatorPod, ALICE),
    "1 MB pod from a user": create(hugePod({ tolerations: cocoon, ownerReferences: owned }), ALICE),
  },
  "allow/": {
    "operator creates its pod": create(operatorPod),
    "CocoonSet among other owners": create(
      pod({ tolerations: cocoon, ownerReferences: [rsOwner, cocoonSetOwner] }),
    ),
    "annotation with empty value only": create(
      pod({ annotations: { [VM_NAME_ANNOTATION]: "" }, ownerReferences: owned }),
    ),
    "annotations a number": create(
      pod({ tolerations: cocoon, annotations: 5, ownerReferences: owned }),
    ),
    "operator adds markers on UPDATE (old undecodable)": update(null, operatorPod),
    "1 MB pod from the operator": create(hugePod({ tolerations: cocoon, ownerReferences: owned })),
  },
};

const gateCases = Object.entries(gateTable).flatMap(([expected, requests]) =>
  Object.entries(requests).map(([name, request]) => ({ name, request, expected })),
);

describe("podGate (SPEC §4)", () => {
  test.each(gateCases)("$expected: $name", ({ request, expected }) => {
    const verdict = podGate(request, { podCreators: OPERATOR_ONLY });
    expect(label(verdict)).toBe(expected);
    expect(verdict.allowed).toBe(!expected.startsWith("deny/"));
    if (verdict.allowed) expect(verdict.message).toBeUndefined();
  });

  test("the 1 MB pod really is about 1 MB", () => {
    expect(JSON.stringify(hugePod({})).length).toBeGreaterThan(1_000_000);
  });
});

describe("podGate with a configured POD_CREATORS", () => {
  test.each<[string, string[], string, string]>([
    ["a listed user", [OPERATOR_USERNAME, ALICE], ALICE, "allow/"],
    ["the operator when not listed", [ALICE], OPERATOR_USERNAME, "deny/creator"],
    ["the operator when the list is empty", [], OPERATOR_USERNAME, "deny/creator"],
  ])("%s → %s", (_name, creators, username, expected) => {
    const verdict = podGate(create(operatorPod, username), { podCreators: new Set(creators) });
    expect(label(verdict)).toBe(expected);
  });
});

describe("podGate denial messages", () => {
  const messageCases: { name: string; request: AdmissionRequest; mentions: string[] }[] = [
    {
      name: "not_owned",
      request: create(tolerationOnly),
      mentions: [
        "default/demo-0",
        "metadata.ownerReferences",
        COCOONSET_KIND,
        COCOON_TOLERATION_KEY,
        VM_NAME_ANNOTATION,
      ],
    },
    {
      name: "creator",
      request: create(operatorPod, ALICE),
      mentions: [`"${ALICE}"`, "default/demo-0", "POD_CREATORS", OPERATOR_USERNAME, "not proof"],
    },
    {
      name: "creator on UPDATE",
      request: update(plainPod, operatorPod, ALICE),
      mentions: [`"${ALICE}"`, "add a cocoon marker", "POD_CREATORS"],
    },
    {
      name: "creator on a pod without a name yet (generateName)",
      request: podRequest({ operation: "CREATE", object: operatorPod, name: undefined }, ALICE),
      mentions: [`"${ALICE}"`, 'namespace "default"'],
    },
  ];

  test.each(messageCases)("$name", ({ request, mentions }) => {
    const message = podGate(request, { podCreators: OPERATOR_ONLY }).message ?? "";
    for (const mention of mentions) expect(message).toContain(mention);
    expect(message.startsWith(MESSAGE_PREFIX)).toBe(false);
  });
});
