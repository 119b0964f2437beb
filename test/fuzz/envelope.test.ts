import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { COCOON_TOLERATION_KEY } from "../../src/cocoon/markers";
import { type AdmissionRequest, admissionReviewSchema } from "../../src/contract/admission-request";
import { denied, type Verdict } from "../../src/contract/verdict";
import type { EndpointDeps as HandlerDeps } from "../../src/endpoints";
import { type EndpointKey, resultReasons } from "../../src/endpoints";
import { encodeResponse, MESSAGE_PREFIX } from "../../src/http/review-answer";
import { admissionRequest, admissionReview } from "../support/admission-review";
import { FakeKube } from "../support/fake-kube";
import { examine } from "../support/handlers";
import { anyJson, corruptedAnywhere, type Json, RUNS, wrongValue } from "./arbitraries";

/**
 * The envelope and every rule take whatever the network hands them: random
 * JSON and wrong types at every path must produce a verdict (or a schema
 * rejection), never an exception.
 */

/** A verdict the endpoint table allows `endpoint` to give, consistent in itself. */
function expectVerdict(endpoint: EndpointKey, verdict: Verdict): void {
  expect(resultReasons(endpoint)).toContainEqual({
    result: verdict.result,
    reason: verdict.reason,
  });
  expect(verdict.allowed).toBe(verdict.result === "allow" || verdict.result === "skipped");
  if (!verdict.allowed) expect(verdict.message).not.toBe("");
}

const cocoonWorkload = {
  spec: {
    replicas: 3,
    template: { spec: { tolerations: [{ key: COCOON_TOLERATION_KEY, operator: "Exists" }] } },
  },
};
const kube = () =>
  new FakeKube()
    .withWorkload("deployments", "team-a", "agents", cocoonWorkload)
    .withHibernations("team-a", [
      { metadata: { name: "demo-0" }, spec: { podRef: { name: "demo-0" } } },
    ]);
const failingKube = () => new FakeKube().failing();

/** Examines a request at one endpoint and checks its verdict. */
type RuleUnderTest = (request: AdmissionRequest) => Promise<void>;

function checked(endpoint: EndpointKey, deps: Partial<HandlerDeps> = {}): RuleUnderTest {
  return async (request) => expectVerdict(endpoint, await examine(endpoint, request, deps));
}

const RULES: Record<string, RuleUnderTest> = {
  podGate: checked("podGate", { kube: kube() }),
  podGateApiserverDown: checked("podGate", { kube: failingKube() }),
  scaleGuard: checked("scaleGuard", { kube: kube() }),
  scaleGuardApiserverDown: checked("scaleGuard", { kube: failingKube() }),
  validateCocoonSet: checked("cocoonSet"),
  validateHibernation: checked("cocoonHibernation", { kube: kube() }),
  validateHibernationApiserverDown: checked("cocoonHibernation", { kube: failingKube() }),
};

/** Realistic objects per handler, to corrupt one path at a time. */
const SAMPLES: Record<string, Json> = {
  pod: {
    metadata: {
      name: "demo-0",
      annotations: { "vm.cocoonstack.io/name": "vk-team-a-demo-0" },
      ownerReferences: [
        {
          apiVersion: "cocoonset.cocoonstack.io/v1",
          kind: "CocoonSet",
          name: "demo",
          uid: "1",
          controller: true,
        },
      ],
    },
    spec: {
      containers: [{ name: "agent", image: "cocoonstack/agent:1.0" }],
      tolerations: [{ key: COCOON_TOLERATION_KEY, operator: "Exists", effect: "NoSchedule" }],
    },
  },
  scale: { kind: "Scale", metadata: { name: "agents" }, spec: { replicas: 1 } },
  deployment: cocoonWorkload,
  cocoonSet: {
    metadata: { name: "demo", namespace: "team-a", generateName: "demo-" },
    spec: {
      agent: {
        image: "cocoonstack/agent:1.0",
        replicas: 2,
        mode: "clone",
        os: "linux",
        backend: "cloud-hypervisor",
        connType: "ssh",
        resources: { requests: { memory: "1Gi", cpu: "1" } },
      },
      toolboxes: [
        {
          name: "browser",
          image: "cocoonstack/browser:1",
          mode: "run",
          backend: "cloud-hypervisor",
        },
        { name: "win", mode: "static", staticIP: "10.0.0.9", staticVMID: "vm-9", connType: "rdp" },
      ],
      snapshotPolicy: "always",
      hibernatePolicy: "retain",
    },
  },
  hibernation: {
    metadata: { name: "demo-1", namespace: "team-a" },
    spec: { desire: "Hibernate", podRef: { name: "demo-1" } },
  },
};

const request = (overrides: Partial<AdmissionRequest>): AdmissionRequest =>
  admissionRequest({
    uid: "uid-1",
    namespace: "team-a",
    name: "agents",
    userInfo: { username: "alice" },
    ...overrides,
  });

const arbitraryRequest: fc.Arbitrary<AdmissionRequest> = fc.record({
  uid: fc.string({ minLength: 1 }),
  operation: fc.option(fc.constantFrom("CREATE", "UPDATE", "DELETE", "CONNECT", "", "create"), {
    nil: undefined,
  }),
  kind: fc.option(
    fc.record({
      kind: fc.constantFrom("Pod", "Deployment", "StatefulSet", "Scale", "CocoonSet", ""),
    }),
    { nil: undefined },
  ),
  resource: fc.option(
    fc.record({ resource: fc.constantFrom("deployments", "statefulsets", "pods", "") }),
    { nil: undefined },
  ),
  subResource: fc.option(fc.constantFrom("scale", "status", ""), { nil: undefined }),
  namespace: fc.option(fc.constantFrom("team-a", "", "kube-system"), { nil: undefined }),
  name: fc.option(fc.constantFrom("agents", "demo-0", ""), { nil: undefined }),
  userInfo: fc.option(fc.record({ username: fc.option(fc.string(), { nil: undefined }) }), {
    nil: undefined,
  }),
  object: anyJson,
  oldObject: anyJson,
});

describe("property: the envelope decoder", () => {
  test("never throws on random JSON, and only accepts a well-formed review", () => {
    fc.assert(
      fc.property(anyJson, (body) => {
        const parsed = admissionReviewSchema.safeParse(body);
        if (parsed.success) {
          expect(parsed.data.kind).toBe("AdmissionReview");
          expect(parsed.data.request.uid).not.toBe("");
        }
      }),
      RUNS,
    );
  });

  test("rejects a review with a wrong type at any envelope path, or decodes it with the uid intact", () => {
    const envelope = admissionReview({
      uid: "u-1",
      subResource: "",
      name: "web",
      username: "alice",
      object: SAMPLES.pod ?? null,
    }) as unknown as Json;
    fc.assert(
      fc.property(corruptedAnywhere(envelope), ({ corrupted }) => {
        const parsed = admissionReviewSchema.safeParse(corrupted);
        if (!parsed.success) return;
        expect(typeof parsed.data.request.uid).toBe("string");
        const encoded = encodeResponse(
          parsed.data.apiVersion,
          parsed.data.request.uid,
          "cocoonSet",
          denied("invalid_spec", "m"),
        );
        expect(encoded.response.uid).toBe(parsed.data.request.uid);
        expect(encoded.apiVersion).toBe(parsed.data.apiVersion);
        expect(encoded.response.status?.message.startsWith(MESSAGE_PREFIX)).toBeTrue();
      }),
      RUNS,
    );
  });
});

describe("property: every rule returns a verdict for any embedded object", () => {
  for (const [name, rule] of Object.entries(RULES)) {
    test(`${name}: random requests and objects`, async () => {
      await fc.assert(
        fc.asyncProperty(arbitraryRequest, (each) => rule(each)),
        { numRuns: 200 },
      );
    });
  }

  const cases: [string, string, RuleUnderTest, Partial<AdmissionRequest>][] = [
    ["pod", "podGate", RULES.podGate as RuleUnderTest, { kind: { kind: "Pod" } }],
    [
      "scale",
      "scaleGuard (scale-down through /scale)",
      RULES.scaleGuard as RuleUnderTest,
      {
        operation: "UPDATE",
        subResource: "scale",
        resource: { resource: "deployments" },
        oldObject: { spec: { replicas: 3 } },
      },
    ],
    [
      "deployment",
      "scaleGuard (direct UPDATE)",
      RULES.scaleGuard as RuleUnderTest,
      { operation: "UPDATE", kind: { kind: "Deployment" }, oldObject: cocoonWorkload },
    ],
    ["cocoonSet", "validateCocoonSet", RULES.validateCocoonSet as RuleUnderTest, {}],
    ["hibernation", "validateHibernation", RULES.validateHibernation as RuleUnderTest, {}],
  ];
  for (const [sample, name, rule, overrides] of cases) {
    test(`${name}: a wrong type at every path of a realistic ${sample}`, async () => {
      const object = SAMPLES[sample] ?? null;
      await fc.assert(
        fc.asyncProperty(corruptedAnywhere(object), async ({ corrupted }) =>
          rule(request({ ...overrides, object: corrupted })),
        ),
        RUNS,
      );
    });
  }

  test("scaleGuard: a corrupted old Scale or workload never turns a cocoon scale-down into a silent allow", async () => {
    // A direct UPDATE of a cocoon Deployment: an unreadable new replicas count is skipped/decode
    // (the apiserver rejects it), never a plain allow.
    await fc.assert(
      fc.asyncProperty(wrongValue, async (replicas) => {
        const verdict = await examine(
          "scaleGuard",
          request({
            operation: "UPDATE",
            kind: { kind: "Deployment" },
            oldObject: cocoonWorkload,
            object: { ...cocoonWorkload, spec: { ...cocoonWorkload.spec, replicas } },
          }),
          { kube: kube() },
        );
        expectVerdict("scaleGuard", verdict);
        if (verdict.allowed) {
          expect(
            verdict.result === "skipped" || (Number.isInteger(replicas) && Number(replicas) >= 3),
          ).toBeTrue();
        }
      }),
      RUNS,
    );
  });
});
