import { describe, expect, test } from "bun:test";
import { type CelInput, celEnv, isCelError, parse, plan } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import fc from "fast-check";
import {
  GARBAGE_COLLECTOR_USERNAMES,
  OPERATOR_USERNAME,
  SANDBOX_OPERATOR_USERNAME,
  VK_COCOON_USERNAME,
} from "../../src/cocoon/identities";
import { COCOON_TOLERATION_KEY, VM_NAME_ANNOTATION } from "../../src/cocoon/markers";
import { admissionRequestSchema } from "../../src/contract/admission-request";
import type { MatchCondition, Registration } from "../../src/contract/endpoint";
import { ENDPOINTS, type EndpointKey } from "../../src/endpoints";
import { validateCocoonSet } from "../../src/endpoints/cocoonset/decide";
import { DEFAULT_POD_CREATORS } from "../../src/endpoints/pod-gate/creators";
import {
  podEntersCocoonGate,
  podGate as podGateRule,
  requestedNodeName,
} from "../../src/endpoints/pod-gate/decide";
import { changedGateFields } from "../../src/endpoints/pod-gate/gate-fields";
import { podGateConditions } from "../../src/endpoints/pod-gate/match-conditions";
import {
  BOUND_NODES_ENTRY,
  DEFAULT_RUNTIME_IDENTITIES,
  isPlatformIdentity,
} from "../../src/endpoints/pod-gate/platform-identities";
import {
  readScaleReplicas,
  readWorkloadReplicas,
  scaleGuard,
  workloadIsCocoon,
} from "../../src/endpoints/scale-guard";
import { jsonEqual } from "../../src/json/equal";
import { isJsonObject, valueAt } from "../../src/json/read";
import {
  admissionRequest,
  admissionReview,
  appsResource,
  BINDING_KIND,
  DEPLOYMENT_KIND,
  POD_RESOURCE,
  type ReviewOptions,
} from "../support/admission-review";
import { FakeKube } from "../support/fake-kube";
import { podCreators, runtimeIdentities } from "../support/handlers";
import { asFolded, compileCondition, NULL_READINGS } from "./cel-readings";
import type { Json } from "./kustomize";

/*
 * The apiserver skips the webhook when a matchCondition is false, so the CEL
 * must agree exactly with the predicates the webhook itself applies. These
 * properties evaluate the endpoint table's expressions (what `make generate`
 * writes into the manifests) with @bufbuild/cel against generated objects
 * shaped like the apiserver's (typed fields, omitted empty fields, plus null
 * and empty sections for robustness).
 *
 * One difference to keep in mind: @bufbuild/cel treats a null-valued map key
 * as absent for has() and `in`, where cel-go (the apiserver) reports it as
 * present. The expressions therefore guard every section with both has() and
 * `!= null`, which gives the same verdict under either reading; the examples
 * below pin the null cases.
 */

type Bindings = { object: Json; oldObject: Json; request: Json };
type Condition = { name: string; evaluate: (bindings: Bindings) => boolean };

/** The matchConditions the endpoint table registers `endpoint` with (and `make generate` writes). */
function conditionsOf(endpoint: EndpointKey): readonly MatchCondition[] {
  const registration: Registration = ENDPOINTS[endpoint].registration;
  const conditions = registration.matchConditions?.conditions ?? [];
  if (conditions.length === 0) throw new Error(`${endpoint} has no matchConditions`);
  return conditions.map((condition) => ({
    ...condition,
    expression: asFolded(condition.expression),
  }));
}

function compile(endpoint: EndpointKey): Condition[] {
  return compileConditions(conditionsOf(endpoint));
}

function compileConditions(conditions: readonly MatchCondition[]): Condition[] {
  // The apiserver's CEL has the strings extension (split, trim) that the identity lists use.
  const env = celEnv({ funcs: strings });
  return conditions.map(({ name: conditionName, expression }) => {
    const program = plan(env, parse(expression));
    return {
      name: conditionName,
      evaluate: (bindings) => {
        const result = program(bindings as { [key: string]: CelInput });
        if (isCelError(result)) {
          throw new Error(
            `${conditionName} errored (${result.message}) on ${JSON.stringify(bindings)}`,
          );
        }
        if (typeof result !== "boolean")
          throw new Error(`${conditionName} returned ${String(result)}`);
        return result;
      },
    };
  });
}

/** The apiserver calls the webhook only when every matchCondition is true. */
function calls(conditions: readonly Condition[], bindings: Bindings): boolean {
  return conditions.map((condition) => condition.evaluate(bindings)).every(Boolean);
}

const podGate = compile("podGate");

/** The `request` variable CEL sees: the review's request as the apiserver sends it. */
const requestBinding = (options: ReviewOptions): Json =>
  admissionReview(options).request as unknown as Json;

function podRequest(operation: "CREATE" | "UPDATE"): Json {
  return requestBinding({ uid: "705ab4f5-6393-11e8-b7cc-42010a800002", name: "p", operation });
}

/** A pod UPDATE by `username`, through `subResource` (status) or the pod itself. */
function podUpdateRequest(username: string, subResource: string | undefined): Json {
  return requestBinding({
    uid: "705ab4f5-6393-11e8-b7cc-42010a800005",
    name: "p",
    operation: "UPDATE",
    username,
    ...(subResource === undefined ? {} : { subResource }),
  });
}

const DEFAULT_IDENTITIES = {
  podCreators: podCreators(DEFAULT_POD_CREATORS),
  runtimeIdentities: runtimeIdentities(DEFAULT_RUNTIME_IDENTITIES),
};

/** Whether the webhook judges an UPDATE (it skips it as no_change otherwise). */
function judgedOnUpdate(oldObject: Json, object: Json, username: string): boolean {
  if (!podEntersCocoonGate(oldObject)) return podEntersCocoonGate(object);
  const nodeName = isJsonObject(oldObject) ? valueAt(oldObject, ["spec", "nodeName"]) : undefined;
  return (
    !isPlatformIdentity(username, nodeName, DEFAULT_IDENTITIES) &&
    changedGateFields(oldObject, object).length > 0
  );
}

/** Who updates: a user, each kind of platform identity, or the node the old pod is bound to. */
const OWN_NODE = "<the pod's node>";
const updater = fc.constantFrom(
  "alice",
  "",
  OPERATOR_USERNAME,
  SANDBOX_OPERATOR_USERNAME,
  VK_COCOON_USERNAME,
  ...GARBAGE_COLLECTOR_USERNAMES,
  "system:node:elsewhere",
  OWN_NODE,
  OWN_NODE,
);

function usernameFor(who: string, oldObject: Json): string {
  if (who !== OWN_NODE) return who;
  const nodeName = isJsonObject(oldObject) ? valueAt(oldObject, ["spec", "nodeName"]) : undefined;
  return `system:node:${typeof nodeName === "string" ? nodeName : ""}`;
}

const subResource = fc.constantFrom(undefined, "status");

const SCHEDULER = "system:kube-scheduler";

/**
 * A Binding request as the apiserver sends it: `pods/binding`, or the older
 * `bindings` resource; `username` undefined leaves it out.
 */
function bindingRequest(legacy: boolean, username: string | undefined): Json {
  return requestBinding({
    uid: "705ab4f5-6393-11e8-b7cc-42010a800004",
    kind: BINDING_KIND,
    resource: legacy ? { ...POD_RESOURCE, resource: "bindings" } : POD_RESOURCE,
    ...(legacy ? {} : { subResource: "binding" }),
    name: "p",
    userInfo: username === undefined ? {} : { username },
  });
}

/** A workload request; subResource is omitted (as the apiserver's omitempty does) when absent. */
function workloadRequest(subResource: string | undefined): Json {
  return requestBinding({
    uid: "705ab4f5-6393-11e8-b7cc-42010a800003",
    kind: DEPLOYMENT_KIND,
    resource: appsResource("deployments"),
    ...(subResource === undefined ? {} : { subResource }),
    name: "web",
    operation: "UPDATE",
    username: "kubernetes-admin",
  });
}

// ---------------------------------------------------------------- generators

/** A record whose optional fields are omitted or present; never undefined-valued. */
function record(
  required: { [key: string]: fc.Arbitrary<Json> },
  optional: { [key: string]: fc.Arbitrary<Json> } = {},
): fc.Arbitrary<Json> {
  const fields = [
    ...Object.entries(required).map(([key, arbitrary]) =>
      arbitrary.map((value): [string, Json] | undefined => [key, value]),
    ),
    ...Object.entries(optional).map(([key, arbitrary]) =>
      fc.option(
        arbitrary.map((value): [string, Json] | undefined => [key, value]),
        { nil: undefined },
      ),
    ),
  ];
  return fc
    .tuple(...fields)
    .map((entries): Json => Object.fromEntries(entries.filter((entry) => entry !== undefined)));
}

/** Null stands for a section the apiserver would omit; rare, as it never sends it. */
const orNull = (arbitrary: fc.Arbitrary<Json>): fc.Arbitrary<Json> =>
  fc.oneof({ arbitrary, weight: 6 }, { arbitrary: fc.constant(null), weight: 1 });

const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);

const tolerationKey = fc.constantFrom(
  COCOON_TOLERATION_KEY,
  COCOON_TOLERATION_KEY,
  `${COCOON_TOLERATION_KEY}-x`,
  "Virtual-Kubelet.io/provider",
  "virtual-kubelet.io",
  "node.kubernetes.io/not-ready",
  "node.kubernetes.io/unreachable",
  "",
);

const toleration: fc.Arbitrary<Json> = fc.oneof(
  // Keyless Exists: tolerates every taint, but is not a marker.
  { arbitrary: fc.constant({ operator: "Exists" }), weight: 1 },
  {
    arbitrary: record(
      {},
      {
        key: orNull(tolerationKey),
        operator: fc.constantFrom("Exists", "Equal"),
        value: fc.constantFrom("", "cocoon", "sandboxd"),
        effect: fc.constantFrom("NoSchedule", "NoExecute", "PreferNoSchedule"),
        tolerationSeconds: fc.integer({ min: 0, max: 3600 }),
      },
    ),
    weight: 4,
  },
);

const tolerations = orNull(fc.array(toleration, { maxLength: 4 }));

const annotationKey = fc.oneof(
  fc.constantFrom(VM_NAME_ANNOTATION, `${VM_NAME_ANNOTATION}-x`, "vm.cocoonstack.io/hibernate"),
  label,
);

const annotations = orNull(
  fc
    .array(fc.tuple(annotationKey, fc.constantFrom("", "vk-default-demo-0", "true")), {
      maxLength: 3,
    })
    .map((pairs): Json => Object.fromEntries(pairs)),
);

const ownerReferences: fc.Arbitrary<Json> = fc.array(
  record({
    apiVersion: fc.constantFrom("cocoonset.cocoonstack.io/v1", "apps/v1"),
    kind: fc.constantFrom("CocoonSet", "ReplicaSet"),
    name: label,
    uid: fc.uuid(),
  }),
  { maxLength: 2 },
);

const metadata = orNull(
  record(
    { name: label },
    {
      namespace: label,
      labels: fc.dictionary(label, label, { maxKeys: 2 }),
      annotations,
      ownerReferences,
    },
  ),
);

const container = record({
  name: label,
  image: fc.constantFrom("busybox", "registry.k8s.io/pause:3.10"),
});

const podSpec = orNull(
  record(
    { containers: fc.array(container, { minLength: 1, maxLength: 2 }) },
    {
      tolerations,
      nodeName: orNull(fc.oneof(label, fc.constant(""))),
      restartPolicy: fc.constantFrom("Always", "Never"),
    },
  ),
);

const pod = record(
  { apiVersion: fc.constant("v1"), kind: fc.constant("Pod") },
  { metadata, spec: podSpec },
);

/** The old pod and the new: two unrelated pods, or one with a label or one annotation changed. */
const podUpdate: fc.Arbitrary<[Json, Json]> = fc.oneof(
  fc.tuple(pod, pod),
  fc.tuple(pod, fc.tuple(annotationKey, label)).map(([before, [key, value]]): [Json, Json] => {
    const after = structuredClone(before) as { metadata?: Json };
    const meta = isJsonObject(after.metadata) ? after.metadata : {};
    const annotated = isJsonObject(meta.annotations) ? meta.annotations : {};
    const labels = isJsonObject(meta.labels) ? meta.labels : {};
    const changed = key.startsWith("vm.")
      ? { ...meta, annotations: { ...annotated, [key]: value } }
      : { ...meta, labels: { ...labels, [key]: value } };
    return [before, { ...(after as object), metadata: changed }];
  }),
);

const templateSpec = orNull(
  record({ containers: fc.array(container, { minLength: 1, maxLength: 2 }), tolerations }),
);

const workloadMeta = {
  apiVersion: fc.constant("apps/v1"),
  kind: fc.constantFrom("Deployment", "StatefulSet"),
  metadata: record({ name: label, namespace: label }),
};
const selector = fc.constant({ matchLabels: { app: "web" } });
const templateLabels = record({}, { labels: fc.constant({ app: "web" }) });

/** Complete workloads as the apiserver stores them. */
const denseWorkload = record({
  ...workloadMeta,
  spec: record(
    { selector, template: record({ metadata: templateLabels, spec: templateSpec }) },
    { replicas: orNull(fc.integer({ min: 0, max: 5 })) },
  ),
});

/** Workloads with sections missing or null. */
const sparseWorkload = record(workloadMeta, {
  spec: orNull(
    record(
      { selector },
      {
        replicas: orNull(fc.integer({ min: 0, max: 5 })),
        template: orNull(record({}, { metadata: orNull(templateLabels), spec: podSpec })),
      },
    ),
  ),
});

const workload = fc.oneof(
  { arbitrary: denseWorkload, weight: 3 },
  { arbitrary: sparseWorkload, weight: 1 },
);

const scale = record(
  {
    apiVersion: fc.constant("autoscaling/v1"),
    kind: fc.constant("Scale"),
    metadata: record({ name: label, namespace: label }),
  },
  { spec: orNull(record({}, { replicas: orNull(fc.integer({ min: 0, max: 5 })) })) },
);

const RUNS = { numRuns: 2000 };

// ---------------------------------------------------------------- properties

describe("pod gate matchConditions agree with podEntersCocoonGate", () => {
  test("generated pods are gated as often as not", () => {
    const sample = fc.sample(pod, { numRuns: 1000, seed: 1 });
    const gated = sample.filter((generated) => podEntersCocoonGate(generated)).length;
    expect(gated).toBeGreaterThan(200);
    expect(gated).toBeLessThan(800);
  });

  test("generated pods name a node as often as not", () => {
    const sample = fc.sample(pod, { numRuns: 1000, seed: 1 });
    const named = sample.filter((generated) => requestedNodeName(generated) !== undefined).length;
    expect(named).toBeGreaterThan(100);
    expect(named).toBeLessThan(900);
  });

  test("CREATE: called exactly for pods entering the gate or naming a node", () => {
    fc.assert(
      fc.property(pod, (object) => {
        const bindings = { object, oldObject: null, request: podRequest("CREATE") };
        expect(calls(podGate, bindings)).toBe(
          podEntersCocoonGate(object) || requestedNodeName(object) !== undefined,
        );
      }),
      RUNS,
    );
  });

  test("UPDATE: called exactly when a pod newly enters the gate, or someone outside the platform changes a VM pod's gate fields", () => {
    fc.assert(
      fc.property(podUpdate, updater, subResource, ([oldObject, object], who, sub) => {
        const username = usernameFor(who, oldObject);
        const bindings = { object, oldObject, request: podUpdateRequest(username, sub) };
        expect(calls(podGate, bindings)).toBe(judgedOnUpdate(oldObject, object, username));
      }),
      RUNS,
    );
  });

  test("UPDATE: a generated VM pod is changed by an outsider, and the change touches a gate field, as often as not", () => {
    const sample = fc.sample(fc.tuple(podUpdate, updater), { numRuns: 1000, seed: 1 });
    const judged = sample.filter(([[oldObject, object], who]) =>
      judgedOnUpdate(oldObject, object, usernameFor(who, oldObject)),
    ).length;
    expect(judged).toBeGreaterThan(100);
    expect(judged).toBeLessThan(900);
  });

  test("UPDATE of a pod to itself is never sent", () => {
    fc.assert(
      fc.property(pod, updater, subResource, (object, who, sub) => {
        const request = podUpdateRequest(usernameFor(who, object), sub);
        expect(calls(podGate, { object, oldObject: object, request })).toBe(false);
      }),
      RUNS,
    );
  });

  test("whatever UPDATE is not sent, the webhook would allow even with the apiserver unreachable", async () => {
    await fc.assert(
      fc.asyncProperty(podUpdate, updater, subResource, async ([oldObject, object], who, sub) => {
        const request = podUpdateRequest(usernameFor(who, oldObject), sub);
        if (calls(podGate, { object, oldObject, request })) return;
        const verdict = await podGateRule(
          admissionRequestSchema.parse({ ...(request as object), object, oldObject }),
          { ...DEFAULT_IDENTITIES, kube: new FakeKube().failing() },
        );
        expect(verdict.allowed).toBeTrue();
      }),
      RUNS,
    );
  });

  test("the identity lists written into the conditions are those the webhook reads", () => {
    const identity = fc.stringMatching(/^[a-z:.-]{1,12}$/);
    fc.assert(
      fc.property(
        fc.array(identity, { maxLength: 3 }),
        fc.array(identity, { maxLength: 3 }),
        fc.boolean(),
        identity,
        (creators, runtime, boundNodes, stranger) => {
          const creatorsText = creators.length > 0 ? creators.join(" , ") : "x";
          const runtimeText = [...runtime, ...(boundNodes ? [BOUND_NODES_ENTRY] : [])].join(",");
          const conditions = compileConditions(
            podGateConditions(creatorsText, runtimeText).conditions,
          );
          const identities = {
            podCreators: podCreators(creatorsText),
            runtimeIdentities: runtimeIdentities(runtimeText),
          };
          const vmPod = gatePod(
            { containers, nodeName: "vk-node", tolerations: [{ key: COCOON_TOLERATION_KEY }] },
            { name: "p", annotations: { [VM_NAME_ANNOTATION]: "a" } },
          );
          const renamed = gatePod(
            { containers, nodeName: "vk-node", tolerations: [{ key: COCOON_TOLERATION_KEY }] },
            { name: "p", annotations: { [VM_NAME_ANNOTATION]: "b" } },
          );
          for (const username of [...creators, ...runtime, stranger, "system:node:vk-node"]) {
            const request = podUpdateRequest(username, undefined);
            const sent = calls(conditions, { object: renamed, oldObject: vmPod, request });
            expect(sent).toBe(!isPlatformIdentity(username, "vk-node", identities));
          }
        },
      ),
      { numRuns: 60 },
    );
  }, 60_000);
});

describe("pod gate matchConditions agree with the gate's binding check", () => {
  const target = orNull(
    record({}, { kind: orNull(fc.constantFrom("Node", "")), name: orNull(label) }),
  );
  const binding = record(
    { apiVersion: fc.constant("v1"), kind: fc.constant("Binding") },
    { metadata: record({ name: label }), target },
  );
  const username = fc.option(
    fc.constantFrom(SCHEDULER, "system:serviceaccount:cocoon-system:cocoon-operator", "alice", ""),
    { nil: undefined },
  );

  test("called exactly for Bindings not made by the scheduler; the code skips the scheduler's too", async () => {
    await fc.assert(
      fc.asyncProperty(binding, fc.boolean(), username, async (object, legacy, user) => {
        const request = bindingRequest(legacy, user);
        const called = calls(podGate, { object, oldObject: null, request });
        expect(called).toBe(user !== SCHEDULER);
        const kube = new FakeKube();
        const verdict = await podGateRule(admissionRequestSchema.parse(request), {
          podCreators: new Map(),
          runtimeIdentities: { usernames: new Set(), boundNodes: false },
          kube,
        });
        const skippedAsScheduler = verdict.result === "skipped" && verdict.reason === "scheduler";
        expect(skippedAsScheduler).toBe(!called);
        if (!called) expect(kube.calls).toEqual([]);
      }),
      RUNS,
    );
  });
});

// ---------------------------------------------------------------- examples

const gatePod = (spec: Json, metadataValue: Json = { name: "p" }): Json => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: metadataValue,
  spec,
});
const containers = [{ name: "c", image: "busybox" }];

describe("pod gate examples", () => {
  const rows: ReadonlyArray<readonly [string, Json, boolean]> = [
    ["no tolerations, no annotations", gatePod({ containers }), false],
    [
      "keyless Exists toleration",
      gatePod({ containers, tolerations: [{ operator: "Exists" }] }),
      false,
    ],
    [
      "cocoon toleration, any operator",
      gatePod({
        containers,
        tolerations: [{ key: COCOON_TOLERATION_KEY, operator: "Equal", value: "x" }],
      }),
      true,
    ],
    [
      "cocoon toleration after a keyless one",
      gatePod({
        containers,
        tolerations: [{ operator: "Exists" }, { key: COCOON_TOLERATION_KEY }],
      }),
      true,
    ],
    ["null tolerations", gatePod({ containers, tolerations: null }), false],
    ["null toleration entry", gatePod({ containers, tolerations: [null] }), false],
    ["null toleration key", gatePod({ containers, tolerations: [{ key: null }] }), false],
    ["empty spec", gatePod({}), false],
    ["null spec", gatePod(null), false],
    [
      "annotation with empty value",
      gatePod({ containers }, { annotations: { [VM_NAME_ANNOTATION]: "" } }),
      true,
    ],
    [
      "other annotation",
      gatePod({ containers }, { annotations: { [`${VM_NAME_ANNOTATION}-x`]: "v" } }),
      false,
    ],
    ["null annotations", gatePod({ containers }, { name: "p", annotations: null }), false],
    ["null metadata", gatePod({ containers }, null), false],
    ["empty metadata", gatePod({ containers }, {}), false],
    ["empty pod", {}, false],
    ["nodeName set", gatePod({ containers, nodeName: "worker-1" }), true],
    ["empty nodeName", gatePod({ containers, nodeName: "" }), false],
    ["null nodeName", gatePod({ containers, nodeName: null }), false],
  ];
  for (const [name, object, expected] of rows) {
    test(`${name}: ${expected ? "sent" : "not sent"}`, () => {
      expect(podEntersCocoonGate(object) || requestedNodeName(object) !== undefined).toBe(expected);
      expect(calls(podGate, { object, oldObject: null, request: podRequest("CREATE") })).toBe(
        expected,
      );
    });
  }
});

// ====================================================================
// Validating webhook workloads.*: only requests that lower the replica
// count reach the webhook (scale-ups keep working during an outage).
// Evaluated under both readings of a null-valued field (see cel-readings.ts).
// ====================================================================

function compileBothReadings(endpoint: EndpointKey) {
  const expressions = conditionsOf(endpoint).map(({ expression }) => expression);
  const programs = new Map(
    NULL_READINGS.map((reading) => [
      reading,
      expressions.map((expression) => compileCondition(expression, reading)),
    ]),
  );
  /** Whether the apiserver calls the webhook, under each reading of null (they must agree). */
  return (bindings: Bindings): boolean => {
    const verdicts = NULL_READINGS.map((reading) =>
      (programs.get(reading) ?? []).every((program) => program(bindings)),
    );
    if (new Set(verdicts).size !== 1) {
      throw new Error(`the two readings of null disagree on ${JSON.stringify(bindings)}`);
    }
    return verdicts[0] ?? false;
  };
}

const workloadsWebhookCalled = compileBothReadings("scaleGuard");

/** The webhook's own reading: the count, with its kind's default, goes down. */
function replicasGoDown(subResource: string | undefined, object: Json, oldObject: Json): boolean {
  const read = subResource === "scale" ? readScaleReplicas : readWorkloadReplicas;
  const before = read(oldObject);
  const after = read(object);
  return before !== undefined && after !== undefined && after < before;
}

describe("workloads webhook matchConditions: only scale-downs are sent", () => {
  test("generated updates scale down as often as not", () => {
    const pairs = fc.sample(fc.tuple(workload, workload), { numRuns: 1000, seed: 2 });
    const down = pairs.filter(([object, old]) => replicasGoDown(undefined, object, old)).length;
    expect(down).toBeGreaterThan(150);
    expect(down).toBeLessThan(850);
    const scales = fc.sample(fc.tuple(scale, scale), { numRuns: 1000, seed: 2 });
    const scaleDowns = scales.filter(([object, old]) => replicasGoDown("scale", object, old));
    expect(scaleDowns.length).toBeGreaterThan(150);
    expect(scaleDowns.length).toBeLessThan(850);
  });

  test("direct updates: sent exactly when a cocoon workload's count goes down (absent: 1)", () => {
    fc.assert(
      fc.property(workload, workload, (object, oldObject) => {
        const bindings = { object, oldObject, request: workloadRequest(undefined) };
        expect(workloadsWebhookCalled(bindings)).toBe(
          workloadIsCocoon(oldObject) && replicasGoDown(undefined, object, oldObject),
        );
      }),
      RUNS,
    );
  });

  test("/scale: sent exactly when the count goes down (absent: 0), whatever the parent", () => {
    fc.assert(
      fc.property(scale, scale, (object, oldObject) => {
        const bindings = { object, oldObject, request: workloadRequest("scale") };
        expect(workloadsWebhookCalled(bindings)).toBe(replicasGoDown("scale", object, oldObject));
      }),
      RUNS,
    );
  });

  test("other subresources follow the old object and its count", () => {
    fc.assert(
      fc.property(workload, workload, (object, oldObject) => {
        const bindings = { object, oldObject, request: workloadRequest("status") };
        expect(workloadsWebhookCalled(bindings)).toBe(
          workloadIsCocoon(oldObject) && replicasGoDown(undefined, object, oldObject),
        );
      }),
      RUNS,
    );
  });

  test("whatever is not sent, the webhook would allow even with the apiserver unreachable", async () => {
    const unreachable = { kube: new FakeKube().failing() };
    const request = (subResource: "scale" | undefined, object: Json, oldObject: Json) =>
      admissionRequest({
        operation: "UPDATE",
        kind: { kind: subResource ? "Scale" : "Deployment" },
        resource: { resource: "deployments" },
        ...(subResource ? { subResource } : {}),
        name: "web",
        namespace: "default",
        object,
        oldObject,
      });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.tuple(fc.constant("scale" as const), scale, scale),
          fc.tuple(fc.constant(undefined), workload, workload),
        ),
        async ([subResource, object, oldObject]) => {
          const sent = workloadsWebhookCalled({
            object,
            oldObject,
            request: workloadRequest(subResource),
          });
          if (sent) return;
          const verdict = await scaleGuard(request(subResource, object, oldObject), unreachable);
          expect(verdict.allowed).toBe(true);
        },
      ),
      RUNS,
    );
  });
});

describe("workloads webhook matchConditions: examples with absent and null counts", () => {
  const cocoonTemplate = {
    spec: { containers, tolerations: [{ key: COCOON_TOLERATION_KEY, operator: "Exists" }] },
  };
  const deployment = (spec: Json): Json => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "w" },
    spec,
  });
  const cocoon = (replicas?: Json): Json =>
    deployment(
      replicas === undefined
        ? { template: cocoonTemplate }
        : { replicas, template: cocoonTemplate },
    );
  const scaleOf = (spec: Json): Json => ({
    apiVersion: "autoscaling/v1",
    kind: "Scale",
    metadata: { name: "w" },
    spec,
  });
  const rows: ReadonlyArray<readonly [string, string | undefined, Json, Json, boolean]> = [
    ["cocoon 3 → 2", undefined, cocoon(3), cocoon(2), true],
    ["cocoon 2 → 2", undefined, cocoon(2), cocoon(2), false],
    ["cocoon 2 → 5", undefined, cocoon(2), cocoon(5), false],
    ["cocoon 3 → absent (1)", undefined, cocoon(3), cocoon(), true],
    ["cocoon 3 → null (1)", undefined, cocoon(3), cocoon(null), true],
    ["cocoon absent (1) → 0", undefined, cocoon(), cocoon(0), true],
    ["cocoon null (1) → 0", undefined, cocoon(null), cocoon(0), true],
    ["cocoon null (1) → absent (1)", undefined, cocoon(null), cocoon(), false],
    ["cocoon 1 → null spec (1)", undefined, cocoon(1), deployment(null), false],
    ["cocoon 2 → null spec (1)", undefined, cocoon(2), deployment(null), true],
    ["plain 3 → 0", undefined, deployment({ replicas: 3 }), deployment({ replicas: 0 }), false],
    ["null old object", undefined, null, cocoon(0), false],
    [
      "scale 2 → spec: {} (kubectl scale --replicas=0)",
      "scale",
      scaleOf({ replicas: 2 }),
      scaleOf({}),
      true,
    ],
    [
      "scale 2 → replicas null (0)",
      "scale",
      scaleOf({ replicas: 2 }),
      scaleOf({ replicas: null }),
      true,
    ],
    ["scale 2 → spec null (0)", "scale", scaleOf({ replicas: 2 }), scaleOf(null), true],
    ["scale 3 → 1", "scale", scaleOf({ replicas: 3 }), scaleOf({ replicas: 1 }), true],
    ["scale spec: {} (0) → 1", "scale", scaleOf({}), scaleOf({ replicas: 1 }), false],
    [
      "scale null (0) → null (0)",
      "scale",
      scaleOf({ replicas: null }),
      scaleOf({ replicas: null }),
      false,
    ],
    ["scale 2 → 2", "scale", scaleOf({ replicas: 2 }), scaleOf({ replicas: 2 }), false],
    ["scale 1 → 4", "scale", scaleOf({ replicas: 1 }), scaleOf({ replicas: 4 }), false],
  ];
  for (const [name, subResource, oldObject, object, expected] of rows) {
    test(`${name}: ${expected ? "sent" : "not sent"}, under both readings of null`, () => {
      const bindings = { object, oldObject, request: workloadRequest(subResource) };
      expect(workloadsWebhookCalled(bindings)).toBe(expected);
      const cocoonOld = subResource === "scale" || workloadIsCocoon(oldObject);
      expect(cocoonOld && replicasGoDown(subResource, object, oldObject)).toBe(expected);
    });
  }

  test("the cel-go reading really differs from @bufbuild/cel's on a null field", () => {
    const bindings = { object: { spec: { replicas: null } }, oldObject: null, request: {} };
    const expression = "has(object.spec.replicas)";
    expect(compileCondition(expression, "null-is-absent")(bindings)).toBe(false);
    expect(compileCondition(expression, "null-is-present")(bindings)).toBe(true);
  });
});

// ====================================================================
// Validating webhook cocoonsets.*: an UPDATE that leaves spec as it was
// never reaches the webhook, which would skip it as no_change.
// ====================================================================

describe("CocoonSet matchConditions: only a create or a changed spec is sent", () => {
  const cocoonSetWebhookCalled = compileBothReadings("cocoonSet");
  const setRequest = (operation: "CREATE" | "UPDATE"): Json =>
    requestBinding({
      uid: "705ab4f5-6393-11e8-b7cc-42010a800006",
      kind: { group: "cocoonset.cocoonstack.io", version: "v1", kind: "CocoonSet" },
      resource: { group: "cocoonset.cocoonstack.io", version: "v1", resource: "cocoonsets" },
      name: "agents",
      operation,
    });
  const agent = record(
    {},
    {
      image: orNull(fc.constantFrom("agent:1", "agent:2", "https://images.example/a.img")),
      replicas: orNull(fc.integer({ min: -1, max: 3 })),
      mode: orNull(fc.constantFrom("clone", "run", "Clone")),
      storage: orNull(fc.constantFrom("20Gi", "20480Mi", "lots")),
    },
  );
  const spec = orNull(record({}, { agent: orNull(agent), snapshotPolicy: orNull(label) }));
  const cocoonSet = record(
    {
      apiVersion: fc.constant("cocoonset.cocoonstack.io/v1"),
      kind: fc.constant("CocoonSet"),
      metadata: record({ name: fc.constant("agents") }, { finalizers: fc.constant(["f"]) }),
    },
    { spec },
  );
  /** An unrelated pair, or the same spec with other metadata (the operator's writes). */
  const setUpdate: fc.Arbitrary<[Json, Json]> = fc.oneof(
    fc.tuple(cocoonSet, cocoonSet),
    fc.tuple(cocoonSet, label).map(([before, annotation]): [Json, Json] => {
      const after = structuredClone(before) as { metadata: Json };
      return [before, { ...after, metadata: { name: "agents", annotations: { a: annotation } } }];
    }),
  );

  test("an UPDATE is not sent exactly when both specs are there and equal, and then the webhook skips it", async () => {
    await fc.assert(
      fc.asyncProperty(setUpdate, async ([oldObject, object]) => {
        const sent = cocoonSetWebhookCalled({ object, oldObject, request: setRequest("UPDATE") });
        const specOf = (set: Json) => (isJsonObject(set) ? set.spec : undefined);
        const before = specOf(oldObject);
        const after = specOf(object);
        const unchanged = isJsonObject(before) && isJsonObject(after) && jsonEqual(before, after);
        expect(sent).toBe(!unchanged);
        if (sent) return;
        const verdict = await validateCocoonSet(
          admissionRequestSchema.parse({ ...(setRequest("UPDATE") as object), object, oldObject }),
        );
        expect(`${verdict.result}/${verdict.reason}`).toBe("skipped/no_change");
      }),
      RUNS,
    );
  });

  test("generated updates keep the spec as often as not", () => {
    const sample = fc.sample(setUpdate, { numRuns: 1000, seed: 1 });
    const kept = sample.filter(
      ([before, after]) =>
        !cocoonSetWebhookCalled({
          object: after,
          oldObject: before,
          request: setRequest("UPDATE"),
        }),
    ).length;
    expect(kept).toBeGreaterThan(200);
    expect(kept).toBeLessThan(800);
  });

  test("a CREATE is always sent", () => {
    fc.assert(
      fc.property(cocoonSet, (object) => {
        expect(
          cocoonSetWebhookCalled({ object, oldObject: null, request: setRequest("CREATE") }),
        ).toBe(true);
      }),
      RUNS,
    );
  });
});
