import { describe, test } from "bun:test";
import type { JsonObject } from "../../src/json/read";
import { admissionRequest } from "../support/admission-review";
import { FakeKube } from "../support/fake-kube";
import { examine } from "../support/handlers";
import { expectWarningsLeadWithRemedy } from "../support/warnings";
import { COCOONSET_CASES } from "./cases/cocoonset-cases";
import { HIBERNATION_CASES } from "./cases/hibernation-cases";

/*
 * Every catalogue rule's failing cases through the endpoint in warn mode: the
 * warnings kubectl shows (their first 256 characters) name the rule, the path
 * and what the field must be. The endpoints' other refusals are checked the
 * same way, one per reason, in reasons.test.ts.
 */

const NAMESPACE = "agents";

describe("warn mode's warnings, rule by rule", () => {
  for (const [rule, { failing }] of Object.entries(COCOONSET_CASES)) {
    test.each(failing.map((each) => [each.name, each] as const))(
      `${rule}: %s`,
      async (_name, each) => {
        const request = admissionRequest({
          operation: "CREATE",
          namespace: each.namespace ?? "default",
          object: each.object,
        });
        expectWarningsLeadWithRemedy("cocoonSet", await examine("cocoonSet", request));
      },
    );
  }
  for (const [rule, { failing }] of Object.entries(HIBERNATION_CASES)) {
    test.each(failing.map((each) => [each.name, each] as const))(
      `${rule}: %s`,
      async (_name, each) => {
        const kube = new FakeKube().withHibernations(NAMESPACE, [
          ...(each.existing ?? []),
        ] as JsonObject[]);
        const request = admissionRequest({
          operation: "CREATE",
          namespace: NAMESPACE,
          object: each.object,
        });
        expectWarningsLeadWithRemedy(
          "cocoonHibernation",
          await examine("cocoonHibernation", request, { kube }),
        );
      },
    );
  }
});
