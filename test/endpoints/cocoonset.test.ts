import { describe, expect, test } from "bun:test";
import { RULE_CATALOGUE } from "../../src/endpoints";
import { cocoonSetViolations } from "../../src/endpoints/cocoonset/decide";
import { admissionRequest } from "../support/admission-review";
import { examine, refusalMessage } from "../support/handlers";
import { cocoonSet, staticToolbox, toolbox, withToolbox } from "./cases/builders";
import { COCOONSET_CASES, type CocoonSetRuleId } from "./cases/cocoonset-cases";

const violationsOf = (object: unknown, namespace = "default") =>
  cocoonSetViolations(object, namespace) ?? [];

const pathsFor = (rule: CocoonSetRuleId, object: unknown, namespace?: string) =>
  violationsOf(object, namespace)
    .filter((violation) => violation.rule === rule)
    .map((violation) => violation.path);

describe("cocoonSetViolations, rule by rule", () => {
  for (const [rule, { failing, passing }] of Object.entries(COCOONSET_CASES)) {
    describe(rule, () => {
      test.each(failing.map((each) => [each.name, each] as const))(
        "breaks: %s",
        async (_name, each) => {
          expect(pathsFor(rule as CocoonSetRuleId, each.object, each.namespace)).toEqual([
            ...each.paths,
          ]);
        },
      );
      test.each(passing.map((each) => [each.name, each] as const))(
        "passes: %s",
        async (_name, each) => {
          expect(violationsOf(each.object, each.namespace)).toEqual([]);
        },
      );
    });
  }

  test("every CocoonSet rule of the catalogue has cases", async () => {
    const cocoonSetRules = RULE_CATALOGUE.map((rule) => rule.id).filter(
      (id) => !id.startsWith("hibernation."),
    );
    expect(Object.keys(COCOONSET_CASES).sort()).toEqual(cocoonSetRules.sort());
  });
});

describe("cocoonSetViolations, whole objects", () => {
  test("is undefined for anything that is not a JSON object", async () => {
    for (const object of [undefined, null, "CocoonSet", 42, [], [cocoonSet()]]) {
      expect(cocoonSetViolations(object, "default")).toBeUndefined();
    }
  });

  test("reports every violation of one object, each at its path", async () => {
    const object = cocoonSet({
      agent: { image: "", replicas: -2, os: "beos", backend: "firecracker" },
      toolboxes: [toolbox({ name: "0" }), toolbox({ name: "Tools" }), staticToolbox()],
      spec: { snapshotPolicy: "daily" },
    });
    expect(violationsOf(object).map(({ rule, path }) => `${rule} @ ${path}`)).toEqual([
      "agent.image-required @ spec.agent.image",
      "agent.replicas-non-negative @ spec.agent.replicas",
      "vm.os @ spec.agent.os",
      "firecracker.run-mode @ spec.agent.mode",
      "toolbox.name-not-numeric @ spec.toolboxes[0].name",
      "toolbox.backend-matches-agent @ spec.toolboxes[0].backend",
      "toolbox.name-label @ spec.toolboxes[1].name",
      "toolbox.backend-matches-agent @ spec.toolboxes[1].backend",
      "set.snapshot-policy @ spec.snapshotPolicy",
    ]);
  });

  test("carries path segments an offline linter can follow", async () => {
    const [violation] = violationsOf(
      cocoonSet({
        toolboxes: [toolbox({ name: "a" }), toolbox({ name: "b" }), toolbox({ name: "" })],
      }),
    );
    expect(violation).toMatchObject({
      rule: "toolbox.name-required",
      path: "spec.toolboxes[2].name",
      segments: ["spec", "toolboxes", 2, "name"],
    });
  });

  test("applies the CRD defaults: no backend anywhere means cloud-hypervisor on both sides", async () => {
    expect(violationsOf(withToolbox({ backend: undefined }, { backend: undefined }))).toEqual([]);
  });

  test("applies the defaults per mode: an agent defaults to clone, a toolbox to run", async () => {
    const object = withToolbox(
      { image: "registry.example:5000/tools:1" },
      { image: "registry.example:5000/agent:1" },
    );
    expect(violationsOf(object).map((violation) => violation.path)).toEqual(["spec.agent.image"]);
  });

  test("does not pile guesses onto an invalid value", async () => {
    const object = withToolbox(
      { backend: "qemu", mode: "fork", image: "" },
      { backend: "qemu", mode: "fork" },
    );
    expect(violationsOf(object).map(({ rule, path }) => `${rule} @ ${path}`)).toEqual([
      "agent.mode @ spec.agent.mode",
      "vm.backend @ spec.agent.backend",
      "toolbox.mode @ spec.toolboxes[0].mode",
    ]);
  });
});

describe("cocoonSetViolations, messages", () => {
  const messageAt = (object: unknown, path: string, namespace?: string) =>
    violationsOf(object, namespace).find((violation) => violation.path === path)?.message ?? "";

  test("an enum lists the allowed values and the default", async () => {
    expect(messageAt(cocoonSet({ agent: { mode: "Run" } }), "spec.agent.mode")).toBe(
      'must be one of "clone", "run" (or leave it unset for "clone"), got "Run"; values are case-sensitive',
    );
  });

  const messages = (object: unknown) =>
    violationsOf(object).map(({ rule, path, message }) => `${rule} ${path}: ${message}`);

  test("a mistyped field says what it must be and what it is, and only its own rules wait", async () => {
    expect(messages(cocoonSet({ agent: { image: 5, replicas: 1.5 } }))).toEqual([
      "cocoonset.field-types spec.agent.image: must be a string, got 5",
      "cocoonset.field-types spec.agent.replicas: must be a whole number, got 1.5",
    ]);
    expect(
      messages(cocoonSet({ toolboxes: ["tools", toolbox({ name: 7, staticIP: [] })] })),
    ).toEqual([
      'cocoonset.field-types spec.toolboxes[0]: must be an object, got "tools"',
      "cocoonset.field-types spec.toolboxes[1].name: must be a string, got 7",
      "cocoonset.field-types spec.toolboxes[1].staticIP: must be a string, got a list",
    ]);
    expect(messages(cocoonSet({ toolboxes: {} }))).toEqual([
      "cocoonset.field-types spec.toolboxes: must be a list of toolboxes",
    ]);
    expect(messages({ metadata: { name: "demo" }, spec: "agent" })).toEqual([
      'cocoonset.field-types spec: must be an object, got "agent"',
    ]);
    expect(messages({ metadata: { namespace: {} }, spec: { agent: { image: "x" } } })).toEqual([
      "cocoonset.field-types metadata.namespace: must be a string, got an object",
    ]);
  });

  test("a mistyped field hides no other violation of its object", async () => {
    const rules = (object: unknown) =>
      violationsOf(object).map(({ rule, path }) => `${rule} @ ${path}`);
    expect(
      rules(cocoonSet({ agent: { image: undefined, replicas: "2", backend: "qemu" } })),
    ).toEqual([
      "cocoonset.field-types @ spec.agent.replicas",
      "agent.image-required @ spec.agent.image",
      "vm.backend @ spec.agent.backend",
    ]);
    expect(
      rules(
        cocoonSet({
          toolboxes: [
            toolbox({ name: 7, image: undefined, os: "beos" }),
            staticToolbox({ staticIP: 10, staticVMID: undefined }),
          ],
        }),
      ),
    ).toEqual([
      "cocoonset.field-types @ spec.toolboxes[0].name",
      "cocoonset.field-types @ spec.toolboxes[1].staticIP",
      "toolbox.image-required @ spec.toolboxes[0].image",
      "vm.os @ spec.toolboxes[0].os",
      "toolbox.static-target @ spec.toolboxes[1].staticVMID",
    ]);
  });

  test("a mistyped field is not also reported missing", async () => {
    expect(messages(cocoonSet({ agent: { image: 5 } }))).toEqual([
      "cocoonset.field-types spec.agent.image: must be a string, got 5",
    ]);
    expect(messages(cocoonSet({ toolboxes: [toolbox({ name: ["a"], image: false })] }))).toEqual([
      "cocoonset.field-types spec.toolboxes[0].image: must be a string, got false",
      "cocoonset.field-types spec.toolboxes[0].name: must be a string, got a list",
    ]);
  });

  test("a name over budget gives name, length and limit", async () => {
    const message = messageAt(cocoonSet({ name: "a".repeat(51) }), "metadata.name");
    expect(message).toContain(`"vk-default-${"a".repeat(51)}-0"`);
    expect(message).toContain("64 characters");
    expect(message).toContain("limit of 63");
  });

  test("huge replicas are reported as runs of equal length, not name by name", async () => {
    const set = "a".repeat(46);
    const found = violationsOf(cocoonSet({ name: set, agent: { replicas: 2_000_000 } }));
    expect(found.map((violation) => violation.message)).toEqual([
      expect.stringContaining(
        `900000 VM names, "vk-default-${set}-100000" … "vk-default-${set}-999999", of 64 characters each`,
      ),
      expect.stringContaining(
        `1000001 VM names, "vk-default-${set}-1000000" … "vk-default-${set}-2000000", of 65 characters each`,
      ),
    ]);
    expect(found[0]?.message).toContain("keep spec.agent.replicas below 100000");
  });

  test("generateName is measured with its 5-character suffix", async () => {
    const message = messageAt(cocoonSet({ generateName: "a".repeat(46) }), "metadata.generateName");
    expect(message).toContain(`"vk-default-${"a".repeat(46)}xxxxx-0"`);
    expect(message).toContain("5 random characters");
  });

  test("a long user value is cut short in the message", async () => {
    const message = messageAt(cocoonSet({ agent: { os: "x".repeat(5000) } }), "spec.agent.os");
    expect(message.length).toBeLessThan(300);
  });
});

describe("/validate-cocoonset", () => {
  const request = (object: unknown, overrides = {}) => admissionRequest({ object, ...overrides });

  test.each(["DELETE", "CONNECT", undefined])("skips operation %s", async (operation) => {
    expect(
      await examine("cocoonSet", request(cocoonSet({ agent: { image: "" } }), { operation })),
    ).toEqual({
      allowed: true,
      result: "skipped",
      reason: "operation",
    });
  });

  test.each([[undefined], [null], ["x"], [[1]]])(
    "fails closed on an undecodable object (%p)",
    async (object) => {
      const verdict = await examine("cocoonSet", request(object));
      expect(verdict).toMatchObject({ allowed: false, result: "error", reason: "decode" });
    },
  );

  test.each(["CREATE", "UPDATE"])("allows a valid set on %s", async (operation) => {
    expect(
      await examine(
        "cocoonSet",
        request(cocoonSet(), { operation, oldObject: cocoonSet({ agent: { replicas: 1 } }) }),
      ),
    ).toEqual({
      allowed: true,
      result: "allow",
      reason: "",
    });
  });

  test("denies with one message listing every violation as <path>: <message>", async () => {
    const verdict = await examine(
      "cocoonSet",
      request(cocoonSet({ agent: { image: "" }, toolboxes: [toolbox({ name: "0" })] })),
    );
    expect(verdict).toMatchObject({ allowed: false, result: "deny", reason: "invalid_spec" });
    expect(refusalMessage(verdict)).toStartWith("invalid CocoonSet: spec.agent.image: is required");
    expect(refusalMessage(verdict)).toContain('; spec.toolboxes[0].name: "0" is purely numeric');
    expect(refusalMessage(verdict)).not.toContain("cocoon-webhook: ");
  });

  test("measures VM names with request.namespace", async () => {
    const object = cocoonSet({ name: "a".repeat(45) });
    expect((await examine("cocoonSet", request(object, { namespace: "short" }))).result).toBe(
      "allow",
    );
    expect(
      (await examine("cocoonSet", request(object, { namespace: "much-longer-ns" }))).result,
    ).toBe("deny");
  });

  describe("UPDATE with an unchanged spec", () => {
    const legacy = (memory: unknown, extra = {}) =>
      cocoonSet({
        agent: {
          image: "",
          resources: { limits: { memory, cpu: "2" }, requests: { cpu: "500m" } },
          ...extra,
        },
      });

    const update = (oldObject: unknown, object: unknown) =>
      examine("cocoonSet", request(object, { operation: "UPDATE", oldObject }));

    test("skips the checks, so an invalid CR predating a rule can still lose its finalizer", async () => {
      const old = legacy("1Gi");
      const withoutFinalizer = { ...legacy("1Gi"), metadata: { name: "demo", finalizers: [] } };
      expect(await update(old, withoutFinalizer)).toEqual({
        allowed: true,
        result: "skipped",
        reason: "no_change",
      });
    });

    test("compares quantities by value: 1Gi equals 1024Mi", async () => {
      expect((await update(legacy("1Gi"), legacy("1024Mi"))).reason).toBe("no_change");
      expect((await update(legacy("1Gi"), legacy("1073741824"))).reason).toBe("no_change");
      expect((await update(legacy(1), legacy("1"))).reason).toBe("no_change");
    });

    test("ignores key order", async () => {
      const old = cocoonSet({ agent: { image: "", os: "linux", mode: "run" } });
      const reordered = cocoonSet({ agent: { mode: "run", os: "linux", image: "" } });
      expect(Object.keys(old.spec as object)).toEqual(Object.keys(reordered.spec as object));
      expect((await update(old, reordered)).reason).toBe("no_change");
      expect(
        (
          await update(
            { spec: { b: 1, agent: { image: "" } } },
            { spec: { agent: { image: "" }, b: 1 } },
          )
        ).reason,
      ).toBe("no_change");
    });

    test("checks a spec that changed, even by a different quantity", async () => {
      expect(await update(legacy("1Gi"), legacy("2Gi"))).toMatchObject({
        result: "deny",
        reason: "invalid_spec",
      });
    });

    test("compares names as strings even when they look like quantities", async () => {
      const old = withToolbox({ name: "1k" });
      expect(await update(old, withToolbox({ name: "1000" }))).toMatchObject({ result: "deny" });
    });

    test("checks the spec when the old object is missing or unreadable", async () => {
      const invalid = legacy("1Gi");
      expect((await examine("cocoonSet", request(invalid, { operation: "UPDATE" }))).result).toBe(
        "deny",
      );
      expect((await update("garbage", invalid)).result).toBe("deny");
    });

    test("is not a CREATE shortcut", async () => {
      const invalid = legacy("1Gi");
      expect((await examine("cocoonSet", request(invalid, { oldObject: invalid }))).result).toBe(
        "deny",
      );
    });
  });
});
