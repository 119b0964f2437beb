import { describe, expect, test } from "bun:test";
import {
  collectViolations,
  describeViolations,
  LISTED_VIOLATIONS_LIMIT,
  violation,
} from "../../src/contract/violations";
import { checkCocoonSet, cocoonSetViolations } from "../../src/endpoints/cocoonset/decide";
import { admissionRequest } from "../support/admission-review";
import { FakeKube } from "../support/fake-kube";
import { examine, refusalMessage } from "../support/handlers";
import { cocoonSet } from "./cases/builders";

const emptyToolboxes = (count: number) =>
  cocoonSet({ toolboxes: Array.from({ length: count }, () => ({})) });

describe("collectViolations", () => {
  test("keeps the first `limit` in full and counts the rest per rule without building them", async () => {
    let built = 0;
    const collected = collectViolations<"vm.os" | "vm.backend">((report) => {
      const reportAt = (rule: "vm.os" | "vm.backend", index: number) =>
        report(rule, () => {
          built++;
          return violation(rule, ["spec", "toolboxes", index, "os"], `bad ${index}`);
        });
      reportAt("vm.os", 0);
      reportAt("vm.backend", 1);
      reportAt("vm.os", 2);
      reportAt("vm.backend", 3);
      reportAt("vm.os", 4);
    }, 2);

    expect(built).toBe(2);
    expect(collected.total).toBe(5);
    expect(collected.listed.map((each) => each.message)).toEqual(["bad 0", "bad 1"]);
    expect([...collected.unlistedByRule]).toEqual([
      ["vm.os", 2],
      ["vm.backend", 1],
    ]);
    expect(describeViolations(collected)).toBe(
      "spec.toolboxes[0].os: bad 0; spec.toolboxes[1].os: bad 1; … and 3 more (vm.os: 2, vm.backend: 1)",
    );
  });

  test("without a limit, everything is kept and nothing is summarised", async () => {
    const collected = collectViolations((report) => {
      for (let index = 0; index < 100; index++) {
        report("vm.os", () => violation("vm.os", ["x", index], "bad"));
      }
    });
    expect(collected.listed).toHaveLength(100);
    expect(collected.unlistedByRule.size).toBe(0);
    expect(describeViolations(collected)).not.toContain("more");
  });
});

describe("a CocoonSet with many violations", () => {
  test(`the denial lists ${LISTED_VIOLATIONS_LIMIT} and counts the rest per rule`, async () => {
    const verdict = await examine(
      "cocoonSet",
      admissionRequest({ operation: "CREATE", namespace: "default", object: emptyToolboxes(1000) }),
    );
    expect(verdict).toMatchObject({ allowed: false, result: "deny", reason: "invalid_spec" });
    const message = refusalMessage(verdict);
    expect(message.match(/spec\.toolboxes\[\d+\]\.\w+: /g)).toHaveLength(LISTED_VIOLATIONS_LIMIT);
    expect(message).toContain("spec.toolboxes[9].image: is required");
    expect(message).not.toContain("spec.toolboxes[10]");
    expect(message).toEndWith(
      "; … and 1980 more (toolbox.name-required: 990, toolbox.image-required: 990)",
    );
    expect(message.length).toBeLessThan(4096);
  });

  test("a million empty toolboxes get a bounded denial", async () => {
    const set = emptyToolboxes(1_000_000);
    const found = collectViolations(
      (report) => checkCocoonSet(set, "default", report),
      LISTED_VIOLATIONS_LIMIT,
    );
    expect(found.total).toBe(2_000_000);
    expect(found.listed).toHaveLength(LISTED_VIOLATIONS_LIMIT);
    expect(describeViolations(found)).toEndWith(
      "… and 1999980 more (toolbox.name-required: 999990, toolbox.image-required: 999990)",
    );
  });

  test("the offline check (no limit) still reports every finding", async () => {
    const all = cocoonSetViolations(emptyToolboxes(1000), "default") ?? [];
    expect(all).toHaveLength(2000);
    expect(all.at(-1)?.path).toBe("spec.toolboxes[999].image");
  });

  test("below the cap the message is unchanged: every violation, no summary", async () => {
    const verdict = await examine(
      "cocoonSet",
      admissionRequest({ operation: "CREATE", namespace: "default", object: emptyToolboxes(3) }),
    );
    expect(refusalMessage(verdict)).not.toContain("more");
    expect(refusalMessage(verdict).match(/spec\.toolboxes/g)).toHaveLength(6);
  });
});

describe("a CocoonHibernation with many conflicts", () => {
  test(`lists ${LISTED_VIOLATIONS_LIMIT} and counts the rest`, async () => {
    const existing = Array.from({ length: 30 }, (_, index) => ({
      metadata: { name: `old-${index}` },
      spec: { podRef: { name: "demo-0" } },
    }));
    const kube = new FakeKube().withHibernations("agents", existing);
    const verdict = await examine(
      "cocoonHibernation",
      admissionRequest({
        operation: "CREATE",
        namespace: "agents",
        object: {
          metadata: { name: "demo-0" },
          spec: { desire: "Hibernate", podRef: { name: "demo-0" } },
        },
      }),
      { kube },
    );
    expect(verdict.reason).toBe("duplicate");
    expect(refusalMessage(verdict)).toEndWith("; … and 10 more (hibernation.one-per-pod: 10)");
  });
});
