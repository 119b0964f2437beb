import type { ApiAnswer, RequestOptions } from "./cluster";

/*
 * The second guard against Service mode, inside the apiserver itself. The
 * harness refuses to send a webhook configuration or a CRD conversion webhook
 * that names a Service (client-config-guard.ts), but a docs runbook run with
 * bash, or a tool the harness does not wrap, sends what it likes. These
 * ValidatingAdmissionPolicies make the apiserver refuse to store any such
 * object, whoever sends it, so it can never dial a ClusterIP off this machine.
 * A dry run stores nothing, so it is let through: the tier dry-runs
 * manifests/default as rendered.
 */

type Request = (method: string, path: string, options?: RequestOptions) => Promise<ApiAnswer>;

export const LOCAL_ONLY_POLICY = "cocoon-tier-local-webhooks-only";
const POLICY_MESSAGE = "the control-plane tier registers webhooks by clientConfig.url on 127.0.0.1";

const POLICY_API = "/apis/admissionregistration.k8s.io/v1";

const noService = (clientConfig: string) =>
  `!has(${clientConfig}.clientConfig) || !has(${clientConfig}.clientConfig.service)`;

const POLICIES = [
  {
    name: `${LOCAL_ONLY_POLICY}.webhooks`,
    rule: {
      apiGroups: ["admissionregistration.k8s.io"],
      resources: ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"],
    },
    expression: `!has(object.webhooks) || object.webhooks.all(w, ${noService("w")})`,
  },
  {
    name: `${LOCAL_ONLY_POLICY}.conversion`,
    rule: { apiGroups: ["apiextensions.k8s.io"], resources: ["customresourcedefinitions"] },
    expression:
      "!has(object.spec.conversion) || !has(object.spec.conversion.webhook) || " +
      noService("object.spec.conversion.webhook"),
  },
];

const policyOf = ({ name, rule, expression }: (typeof POLICIES)[number]) => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicy",
  metadata: { name },
  spec: {
    failurePolicy: "Fail",
    matchConstraints: {
      resourceRules: [{ ...rule, apiVersions: ["*"], operations: ["CREATE", "UPDATE"] }],
    },
    matchConditions: [{ name: "stored", expression: "!request.dryRun" }],
    validations: [{ expression, reason: "Forbidden", message: `${name}: ${POLICY_MESSAGE}` }],
  },
});

const bindingOf = ({ name }: (typeof POLICIES)[number]) => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicyBinding",
  metadata: { name },
  spec: { policyName: name, validationActions: ["Deny"] },
});

/**
 * A configuration that names a Service but holds no rule: even stored, it
 * matches no request, so the apiserver never calls it. It tells when the
 * policies are in force.
 */
const PROBE = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingWebhookConfiguration",
  metadata: { name: `${LOCAL_ONLY_POLICY}-probe` },
  webhooks: [
    {
      name: "probe.cocoon-webhook.cocoonstack.io",
      clientConfig: { service: { name: "none", namespace: "default" } },
      rules: [],
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
    },
  ],
};

/** Installs the policies and waits until the apiserver enforces them; `request` must not guard. */
export async function installLocalOnlyPolicy(request: Request): Promise<void> {
  for (const policy of POLICIES) {
    for (const [resource, body] of [
      ["validatingadmissionpolicies", policyOf(policy)],
      ["validatingadmissionpolicybindings", bindingOf(policy)],
    ] as const) {
      const answer = await request("POST", `${POLICY_API}/${resource}`, { body });
      if (answer.status !== 201) {
        throw new Error(`creating ${resource} ${policy.name}: ${JSON.stringify(answer.body)}`);
      }
    }
  }
  const path = `${POLICY_API}/validatingwebhookconfigurations`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const answer = await request("POST", path, { body: PROBE });
    if (answer.status === 403 && String(answer.body?.message).includes(LOCAL_ONLY_POLICY)) return;
    if (answer.status === 201) await request("DELETE", `${path}/${PROBE.metadata.name}`);
    await Bun.sleep(100);
  }
  throw new Error(`the ${LOCAL_ONLY_POLICY} policies were not in force after 30 s`);
}
