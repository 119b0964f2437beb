import { describe, expect, test } from "bun:test";
import type { AdmissionRequest } from "../../src/contract/admission-request";
import { collectViolations } from "../../src/contract/violations";
import { RULE_CATALOGUE } from "../../src/endpoints";
import type { HibernationRuleId } from "../../src/endpoints/hibernation";
import { checkNoOtherHibernation, hibernationViolations } from "../../src/endpoints/hibernation";
import { admissionRequest } from "../support/admission-review";
import { FakeKube } from "../support/fake-kube";
import { examine, refusalMessage } from "../support/handlers";
import { hibernation } from "./cases/builders";
import { HIBERNATION_CASES, hibernationCaseViolations } from "./cases/hibernation-cases";

describe("CocoonHibernation rules, rule by rule", () => {
  for (const [rule, { failing, passing }] of Object.entries(HIBERNATION_CASES)) {
    describe(rule, () => {
      test.each(failing.map((each) => [each.name, each] as const))("breaks: %s", (_name, each) => {
        const paths = hibernationCaseViolations(each)
          .filter((violation) => violation.rule === (rule as HibernationRuleId))
          .map((violation) => violation.path);
        expect(paths).toEqual([...each.paths]);
      });
      test.each(passing.map((each) => [each.name, each] as const))("passes: %s", (_name, each) => {
        expect(hibernationCaseViolations(each)).toEqual([]);
      });
    });
  }

  test("every CocoonHibernation rule of the catalogue has cases", () => {
    const hibernationRules = RULE_CATALOGUE.map((rule) => rule.id).filter((id) =>
      id.startsWith("hibernation."),
    );
    expect(Object.keys(HIBERNATION_CASES).sort()).toEqual(hibernationRules.sort());
  });

  test("hibernationViolations is undefined for anything that is not a JSON object", () => {
    for (const object of [undefined, null, "x", 3, []]) {
      expect(hibernationViolations(object)).toBeUndefined();
    }
  });

  test("conflicts list live CRs before terminating ones", () => {
    const existing = [
      hibernation({ name: "gone", deletionTimestamp: "2026-01-01T00:00:00Z" }),
      hibernation({ name: "live" }),
    ];
    const found = collectViolations((report) =>
      checkNoOtherHibernation("demo-0", existing, report),
    );
    expect(found.listed.map((each) => each.rule)).toEqual([
      "hibernation.one-per-pod",
      "hibernation.wait-for-terminating",
    ]);
  });
});

describe("/validate-cocoonhibernation", () => {
  const NAMESPACE = "agents";
  const create = (object: unknown, overrides: Partial<AdmissionRequest> = {}) =>
    admissionRequest({ operation: "CREATE", namespace: NAMESPACE, object, ...overrides });

  const verdictFor = (
    object: unknown,
    existing: Record<string, unknown>[] = [],
    overrides = {},
  ) => {
    const kube = new FakeKube().withHibernations(NAMESPACE, existing);
    return examine("cocoonHibernation", create(object, overrides), { kube });
  };

  test.each(["UPDATE", "DELETE", "CONNECT"])(
    "skips operation %s without a LIST",
    async (operation) => {
      const kube = new FakeKube().failing();
      const verdict = await examine(
        "cocoonHibernation",
        create(hibernation({ desire: "x" }), { operation }),
        {
          kube,
        },
      );
      expect(verdict).toEqual({ allowed: true, result: "skipped", reason: "operation" });
      expect(kube.calls).toEqual([]);
    },
  );

  test.each([[undefined], [null], ["x"], [[hibernation()]]])(
    "fails closed on an undecodable object (%p)",
    async (object) => {
      expect(await verdictFor(object)).toMatchObject({
        allowed: false,
        result: "error",
        reason: "decode",
      });
    },
  );

  test("allows a CR when the LIST shows none for the pod, listing request.namespace", async () => {
    const kube = new FakeKube().withHibernations(NAMESPACE, [hibernation({ pod: "demo-1" })]);
    expect(await examine("cocoonHibernation", create(hibernation()), { kube })).toEqual({
      allowed: true,
      result: "allow",
      reason: "",
    });
    expect(kube.calls).toEqual([
      { verb: "list", resource: "cocoonhibernations", namespace: NAMESPACE },
    ]);
  });

  test.each([undefined, "hibernate", "Sleep"])(
    "denies desire %p as invalid_desire, without a LIST",
    async (desire) => {
      const kube = new FakeKube().failing();
      const verdict = await examine("cocoonHibernation", create(hibernation({ desire })), {
        kube,
      });
      expect(verdict).toMatchObject({ allowed: false, result: "deny", reason: "invalid_desire" });
      expect(refusalMessage(verdict)).toContain(
        'spec.desire: must be "Hibernate" or "Wake" (case-sensitive)',
      );
      expect(kube.calls).toEqual([]);
    },
  );

  test("denies a name other than the pod's as name_mismatch", async () => {
    const verdict = await verdictFor(hibernation({ name: "sleep-please" }));
    expect(verdict).toMatchObject({ allowed: false, result: "deny", reason: "name_mismatch" });
    expect(refusalMessage(verdict)).toContain(
      'metadata.name: is "sleep-please" but must equal spec.podRef.name "demo-0"',
    );
  });

  test("reports both own violations in one denial, desire first", async () => {
    const verdict = await verdictFor(hibernation({ name: "x", desire: "nap" }));
    expect(verdict.reason).toBe("invalid_desire");
    expect(refusalMessage(verdict)).toContain("spec.desire:");
    expect(refusalMessage(verdict)).toContain("; metadata.name:");
  });

  test("denies a second CR for a pod that has a live one, naming it", async () => {
    const verdict = await verdictFor(hibernation(), [
      hibernation({ pod: "other-0" }),
      hibernation({ name: "first-request" }),
    ]);
    expect(verdict).toMatchObject({ allowed: false, result: "deny", reason: "duplicate" });
    expect(refusalMessage(verdict)).toContain(
      'pod "demo-0" already has CocoonHibernation "first-request"; flip its spec.desire',
    );
  });

  test("denies while the pod's previous CR is still terminating", async () => {
    const verdict = await verdictFor(hibernation(), [
      hibernation({ deletionTimestamp: "2026-01-01T00:00:00Z" }),
    ]);
    expect(verdict).toMatchObject({ allowed: false, result: "deny", reason: "terminating" });
    expect(refusalMessage(verdict)).toContain(
      'CocoonHibernation "demo-0" for pod "demo-0" is still terminating; retry after',
    );
  });

  test("a live duplicate outranks a terminating one", async () => {
    const verdict = await verdictFor(hibernation(), [
      hibernation({ name: "old", deletionTimestamp: "2026-01-01T00:00:00Z" }),
      hibernation({ name: "live" }),
    ]);
    expect(verdict.reason).toBe("duplicate");
    expect(refusalMessage(verdict)).toContain('"live"');
    expect(refusalMessage(verdict)).toContain('"old"');
  });

  // Items that are not objects never get this far: the port refuses such a LIST.
  test("ignores LIST items it cannot decode", async () => {
    const undecodable = [{ spec: {} }, { kind: "Pod" }, { spec: { podRef: 7 } }];
    expect((await verdictFor(hibernation(), undecodable)).result).toBe("allow");
  });

  test("fails closed rather than LIST every namespace when none is named", async () => {
    const kube = new FakeKube();
    const object = { ...hibernation(), metadata: { name: "demo-0" } };
    const verdict = await examine("cocoonHibernation", create(object, { namespace: undefined }), {
      kube,
    });
    expect(verdict).toMatchObject({ allowed: false, result: "error", reason: "list" });
    expect(refusalMessage(verdict)).toContain("cannot verify");
    expect(kube.calls).toEqual([]);
  });

  test("falls back to the object's namespace", async () => {
    const kube = new FakeKube().withHibernations("default", [hibernation({ name: "other" })]);
    const verdict = await examine(
      "cocoonHibernation",
      create(hibernation(), { namespace: undefined }),
      {
        kube,
      },
    );
    expect(verdict.reason).toBe("duplicate");
  });

  test.each([
    ["unreachable apiserver", "connect ECONNREFUSED 127.0.0.1:6443"],
    ["timeout", "list cocoonhibernations timed out after 3000ms"],
    ["no cluster", "no Kubernetes API configured"],
  ])("fails closed when the LIST fails (%s)", async (_case, cause) => {
    const kube = new FakeKube().failing(cause);
    const verdict = await examine("cocoonHibernation", create(hibernation()), { kube });
    expect(verdict).toMatchObject({ allowed: false, result: "error", reason: "list" });
    expect(refusalMessage(verdict)).toContain("cannot verify");
    expect(refusalMessage(verdict)).toContain(cause);
    expect(refusalMessage(verdict)).not.toStartWith("cocoon-webhook: ");
  });
});
