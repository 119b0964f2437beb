import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { COCOONSET_KIND } from "../../src/cocoon/crd-resources";
import { OPERATOR_USERNAME, SANDBOX_OPERATOR_USERNAME } from "../../src/cocoon/identities";
import { COCOON_TOLERATION_KEY, VM_NAME_ANNOTATION } from "../../src/cocoon/markers";
import { DEFAULT_POD_CREATORS, SANDBOX_OWNER } from "../../src/endpoints/pod-gate/creators";
import { podGate } from "../../src/endpoints/pod-gate/decide";
import { DEFAULT_RUNTIME_IDENTITIES } from "../../src/endpoints/pod-gate/platform-identities";
import { admissionRequest, POD_KIND } from "../support/admission-review";
import { FakeKube } from "../support/fake-kube";
import { podCreators, runtimeIdentities } from "../support/handlers";
import { anyJson, type Json, RUNS, wrongValue } from "./arbitraries";

/**
 * A malformed field never opens the gate (docs/behaviour.md, pod gate). A pod gated by one
 * well-formed marker stays denied for a non-creator (and for anyone when it
 * has no CocoonSet owner) whatever any *other* field holds.
 */

// A marked pod is decided without the apiserver; a failing port would show any call.
const deps = {
  podCreators: podCreators(DEFAULT_POD_CREATORS),
  runtimeIdentities: runtimeIdentities(DEFAULT_RUNTIME_IDENTITIES),
  kube: new FakeKube().failing(),
};

/** Strings a random generator will never produce by chance, so they cannot add a marker or owner. */
const mentionsCocoon = (value: unknown): boolean => {
  const text = JSON.stringify(value) ?? "";
  return (
    text.includes(COCOON_TOLERATION_KEY) ||
    text.includes(VM_NAME_ANNOTATION) ||
    text.includes(COCOONSET_KIND) ||
    text.includes(SANDBOX_OWNER.kind)
  );
};
const noise = wrongValue.filter((value) => !mentionsCocoon(value));
const maybe = (arbitrary: fc.Arbitrary<Json>) => fc.option(arbitrary, { nil: undefined });

type Marker = "toleration" | "annotation";

interface GatedPod {
  readonly marker: Marker;
  readonly owned: boolean;
  readonly pod: Json;
}

/** A pod carrying `marker` well-formed; every other field is either plausible or garbage. */
const gatedPod: fc.Arbitrary<GatedPod> = fc
  .record({
    marker: fc.constantFrom<Marker>("toleration", "annotation"),
    owned: fc.boolean(),
    tolerationsBefore: fc.array(noise, { maxLength: 3 }),
    tolerationsAfter: fc.array(noise, { maxLength: 3 }),
    tolerationsGarbage: noise,
    markerTolerationExtras: fc.record(
      {
        operator: wrongValue,
        value: wrongValue,
        effect: wrongValue,
        tolerationSeconds: wrongValue,
      },
      { requiredKeys: [] },
    ),
    annotationValue: anyJson,
    otherAnnotations: fc.dictionary(fc.string({ maxLength: 10 }), noise, { maxKeys: 3 }),
    annotationsGarbage: noise,
    ownerReferencesGarbage: noise,
    ownerReferencesExtra: fc.array(noise, { maxLength: 3 }),
    labels: maybe(noise),
    name: maybe(noise),
    containers: maybe(noise),
    spec: fc.dictionary(fc.string({ maxLength: 8 }), noise, { maxKeys: 3 }),
    metadata: fc.dictionary(fc.string({ maxLength: 8 }), noise, { maxKeys: 3 }),
    top: fc.dictionary(fc.string({ maxLength: 8 }), noise, { maxKeys: 3 }),
    status: maybe(noise),
    garbleAnnotations: fc.boolean(),
    garbleTolerations: fc.boolean(),
    garbleOwners: fc.boolean(),
  })
  .map((p): GatedPod => {
    const markerToleration = { ...p.markerTolerationExtras, key: COCOON_TOLERATION_KEY } as Json;
    const tolerations: Json =
      p.marker === "toleration"
        ? [...p.tolerationsBefore, markerToleration, ...p.tolerationsAfter]
        : p.garbleTolerations
          ? p.tolerationsGarbage
          : [...p.tolerationsBefore, ...p.tolerationsAfter];
    const annotations: Json =
      p.marker === "annotation"
        ? { ...p.otherAnnotations, [VM_NAME_ANNOTATION]: p.annotationValue }
        : p.garbleAnnotations
          ? p.annotationsGarbage
          : p.otherAnnotations;
    const ownerReferences: Json = p.owned
      ? [
          ...p.ownerReferencesExtra,
          {
            apiVersion: "cocoonset.cocoonstack.io/v1",
            kind: COCOONSET_KIND,
            name: "demo",
            uid: "1",
          },
        ]
      : p.garbleOwners
        ? p.ownerReferencesGarbage
        : p.ownerReferencesExtra;
    const metadata: Record<string, Json> = { ...p.metadata, annotations, ownerReferences };
    if (p.labels !== undefined) metadata.labels = p.labels;
    if (p.name !== undefined) metadata.name = p.name;
    const spec: Record<string, Json> = { ...p.spec, tolerations };
    if (p.containers !== undefined) spec.containers = p.containers;
    const pod: Record<string, Json> = { ...p.top, metadata, spec };
    if (p.status !== undefined) pod.status = p.status;
    return { marker: p.marker, owned: p.owned, pod };
  });

/** An old object that carries no marker (so an UPDATE is checked), possibly garbage. */
const ungatedOldObject = fc.oneof(
  noise,
  fc.constant({ metadata: { name: "web" }, spec: { containers: [] } } as Json),
);

const nonCreator = fc
  .oneof(fc.string(), fc.constantFrom("alice", "system:serviceaccount:default:default", ""))
  .filter((name) => name !== OPERATOR_USERNAME && name !== SANDBOX_OPERATOR_USERNAME);

describe("property: a malformed field never turns a denial into an allowance (podGate)", () => {
  test("a gated pod from a non-creator is denied, whatever the other fields hold (CREATE)", async () => {
    await fc.assert(
      fc.asyncProperty(gatedPod, nonCreator, async ({ pod }, username) => {
        const verdict = await podGate(
          admissionRequest({
            kind: POD_KIND,
            operation: "CREATE",
            userInfo: { username },
            object: pod,
          }),
          deps,
        );
        expect(verdict.allowed).toBeFalse();
        expect(["creator", "not_owned"]).toContain(verdict.reason);
      }),
      RUNS,
    );
  });

  test("a pod newly gated on UPDATE from a non-creator is denied, whatever the old object holds", async () => {
    await fc.assert(
      fc.asyncProperty(
        gatedPod,
        nonCreator,
        ungatedOldObject,
        async ({ pod }, username, oldObject) => {
          const verdict = await podGate(
            admissionRequest({
              kind: POD_KIND,
              operation: "UPDATE",
              userInfo: { username },
              object: pod,
              oldObject,
            }),
            deps,
          );
          expect(verdict.allowed).toBeFalse();
        },
      ),
      RUNS,
    );
  });

  test("a gated pod without a well-formed CocoonSet owner is denied even for the operator", async () => {
    await fc.assert(
      fc.asyncProperty(
        gatedPod.filter(({ owned }) => !owned),
        async ({ pod }) => {
          const verdict = await podGate(
            admissionRequest({
              kind: POD_KIND,
              operation: "CREATE",
              userInfo: { username: OPERATOR_USERNAME },
              object: pod,
            }),
            deps,
          );
          expect(verdict).toMatchObject({ allowed: false, reason: "not_owned" });
        },
      ),
      RUNS,
    );
  });

  test("a gated CocoonSet pod from sandbox-operator is denied: it is paired with Sandboxes only", async () => {
    await fc.assert(
      fc.asyncProperty(
        gatedPod.filter(({ owned }) => owned),
        async ({ pod }) => {
          const verdict = await podGate(
            admissionRequest({
              kind: POD_KIND,
              operation: "CREATE",
              userInfo: { username: SANDBOX_OPERATOR_USERNAME },
              object: pod,
            }),
            deps,
          );
          expect(verdict).toMatchObject({ allowed: false, reason: "creator" });
        },
      ),
      RUNS,
    );
  });

  test("a missing or garbled userInfo never passes as the operator", async () => {
    await fc.assert(
      fc.asyncProperty(
        gatedPod.filter(({ owned }) => owned),
        fc.oneof(fc.constant(undefined), fc.constant({}), fc.record({ username: fc.constant("") })),
        async ({ pod }, userInfo) => {
          const verdict = await podGate(
            admissionRequest({ kind: POD_KIND, operation: "CREATE", userInfo, object: pod }),
            deps,
          );
          expect(verdict).toMatchObject({ allowed: false, reason: "creator" });
        },
      ),
      RUNS,
    );
  });
});
