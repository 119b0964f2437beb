import { COCOON_GROUP, COCOONSET_KIND } from "../../cocoon/crd-resources";
import {
  type EndpointModule,
  FAIL_CLOSED,
  type MatchConditions,
  namespaced,
} from "../../contract/endpoint";
import { cel, condition } from "../cel";
import { COCOONSET_REASONS, validateCocoonSet } from "./decide";
import { COCOONSET_RULES, type CocoonSetRuleId } from "./rules";

const COCOONSET_CONDITIONS: MatchConditions = {
  comment:
    "A CocoonSet UPDATE whose spec is unchanged (the operator's finalizer and annotation " +
    "writes) never reaches the webhook, which would pass it anyway, so those writes survive " +
    "a webhook outage.",
  conditions: [
    condition(
      "spec-changed",
      cel`
        request.operation != 'UPDATE' || oldObject == null || object == null
        || !(has(object.spec) && object.spec != null
        && has(oldObject.spec) && oldObject.spec != null
        && object.spec == oldObject.spec)
      `,
      "A spec equal to the old one is semantically equal too (specsSemanticallyEqual in " +
        "src/cocoon/spec-equality.ts), so the webhook would skip it as no_change.",
    ),
  ],
};

/** `/validate-cocoonset`: the cross-field rules of a CocoonSet the CRD schema cannot state (rules.ts). */
export const cocoonSetEndpoint = {
  label: "validate_cocoonset",
  path: "/validate-cocoonset",
  registration: {
    kind: "validating",
    name: "cocoonsets.cocoon-webhook.cocoonstack.io",
    comment:
      "No namespaceSelector on the custom resources: they exist only for cocoon workloads, " +
      "wherever those live.",
    rules: [namespaced(COCOON_GROUP, ["CREATE", "UPDATE"], ["cocoonsets"])],
    ...FAIL_CLOSED,
    matchConditions: COCOONSET_CONDITIONS,
  },
  reads: [],
  reasons: COCOONSET_REASONS,
  rules: COCOONSET_RULES,
  remedies: {
    invalid_spec: "fix the fields the message names (`cocoon-webhook validate` lists them all)",
    decode: `send the ${COCOONSET_KIND} as a JSON object`,
  },
  decide: () => validateCocoonSet,
} as const satisfies EndpointModule<typeof COCOONSET_REASONS, CocoonSetRuleId>;
