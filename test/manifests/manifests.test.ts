import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  Certificate,
  type ICertificate,
  type IIssuer,
  Issuer,
} from "@kubernetes-models/cert-manager/cert-manager.io/v1";
import {
  type IMutatingWebhookConfiguration,
  type IValidatingWebhookConfiguration,
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
} from "kubernetes-models/admissionregistration.k8s.io/v1";
import { Deployment, type IDeployment } from "kubernetes-models/apps/v1";
import { type IPodDisruptionBudget, PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ClusterRole, ClusterRoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1";
import { type IService, Namespace, Service, ServiceAccount } from "kubernetes-models/v1";
import packageJson from "../../package.json";
import { ENDPOINT_KEYS, ENDPOINTS, operationsOf } from "../../src/endpoints";
import { DEFAULT_POD_CREATORS } from "../../src/endpoints/pod-gate/creators";
import { podGateConditions } from "../../src/endpoints/pod-gate/match-conditions";
import { DEFAULT_RUNTIME_IDENTITIES } from "../../src/endpoints/pod-gate/platform-identities";
import { asFolded } from "./cel-readings";
import {
  findObject,
  imageName,
  isRecord,
  KUBECTL,
  type KubeObject,
  kubectlKustomize,
  objectKey,
  REPO_ROOT,
  readYamlDocuments,
  render,
  repoPath,
} from "./kustomize";
import { validateSchema } from "./schemas";

const NAMESPACE = "cocoon-system";
const EXCLUDED_NAMESPACES = [
  "kube-system",
  "kube-node-lease",
  "kube-public",
  "cocoon-system",
  "cert-manager",
];
const CERT_DIR = "/etc/cocoon/webhook/certs";
const INJECT_CA_FROM = "cert-manager.io/inject-ca-from";

const objects = render("manifests/default");

/** The object of a model's kind and name, narrowed to the model's type; throws when absent. */
function get<T>(
  model: { kind: string; is: (value: unknown) => value is T },
  name: string,
  from: readonly KubeObject[] = objects,
): T {
  const object = findObject(from, model.kind, name);
  if (!model.is(object)) throw new Error(`${model.kind} ${name} has the wrong apiVersion`);
  return object;
}

const sortByKey = (list: readonly KubeObject[]) =>
  [...list].sort((a, b) => objectKey(a).localeCompare(objectKey(b)));

/** Go-style duration of whole seconds or milliseconds, as the binary's config takes it. */
function seconds(duration: string): number {
  const match = /^(\d+)(ms|s|m)$/.exec(duration);
  if (!match) throw new Error(`unexpected duration ${duration}`);
  const value = Number(match[1]);
  return match[2] === "ms" ? value / 1000 : match[2] === "m" ? value * 60 : value;
}

describe("manifests/default renders", () => {
  test("the expected inventory", () => {
    expect(objects.map(objectKey).sort()).toEqual(
      [
        "ServiceAccount cocoon-system/cocoon-webhook",
        "ConfigMap cocoon-system/cocoon-webhook-identities",
        "ClusterRole cocoon-webhook",
        "ClusterRoleBinding cocoon-webhook",
        "Issuer cocoon-system/cocoon-webhook-selfsigned",
        "Certificate cocoon-system/cocoon-webhook-ca",
        "Issuer cocoon-system/cocoon-webhook-ca",
        "Certificate cocoon-system/cocoon-webhook-tls",
        "ResourceQuota cocoon-system/cocoon-webhook-critical-pods",
        "Deployment cocoon-system/cocoon-webhook",
        "PodDisruptionBudget cocoon-system/cocoon-webhook",
        "Service cocoon-system/cocoon-webhook",
        "MutatingWebhookConfiguration cocoon-webhook",
        "ValidatingWebhookConfiguration cocoon-webhook",
      ].sort(),
    );
  });

  test("owns no Namespace: `kubectl delete -k` never removes the namespace it shares with the operator", () => {
    expect(objects.filter((object) => object.kind === "Namespace")).toEqual([]);
  });

  test("every object passes its schema", () => {
    for (const object of objects)
      expect(() => validateSchema(object), objectKey(object)).not.toThrow();
  });

  test("every namespaced object lives in cocoon-system", () => {
    const clusterScoped = new Set([
      "Namespace",
      "ClusterRole",
      "ClusterRoleBinding",
      "MutatingWebhookConfiguration",
      "ValidatingWebhookConfiguration",
    ]);
    for (const object of objects) {
      const metadata = object.metadata as { namespace?: string };
      expect(metadata.namespace, objectKey(object)).toBe(
        clusterScoped.has(String(object.kind)) ? undefined : NAMESPACE,
      );
    }
  });

  test.skipIf(KUBECTL === undefined)("the same objects as kubectl kustomize", () => {
    expect(sortByKey(kubectlKustomize("manifests/default"))).toEqual(sortByKey(objects));
  });
});

describe("namespace and RBAC", () => {
  test("manifests/namespace: cocoon-system audits the restricted pod security profile without enforcing it on shared pods", () => {
    const [namespace] = render("manifests/namespace");
    expect(namespace).toMatchObject({ kind: "Namespace", metadata: { name: NAMESPACE } });
    const labels = new Namespace(namespace).metadata?.labels ?? {};
    expect(labels["pod-security.kubernetes.io/warn"]).toBe("restricted");
    expect(labels["pod-security.kubernetes.io/audit"]).toBe("restricted");
    expect(labels["pod-security.kubernetes.io/enforce"]).toBeUndefined();
  });

  test("the ClusterRole grants exactly get on workloads, nodes and pods and list on hibernations", () => {
    expect(get(ClusterRole, "cocoon-webhook").rules).toEqual([
      { apiGroups: ["apps"], resources: ["deployments", "statefulsets"], verbs: ["get"] },
      {
        apiGroups: ["cocoonset.cocoonstack.io"],
        resources: ["cocoonhibernations"],
        verbs: ["list"],
      },
      { apiGroups: [""], resources: ["nodes", "pods"], verbs: ["get"] },
    ]);
  });

  test("the ClusterRoleBinding binds it to the webhook's ServiceAccount only", () => {
    get(ServiceAccount, "cocoon-webhook");
    const binding = get(ClusterRoleBinding, "cocoon-webhook");
    expect(binding.roleRef).toEqual({
      apiGroup: "rbac.authorization.k8s.io",
      kind: "ClusterRole",
      name: "cocoon-webhook",
    });
    expect(binding.subjects).toEqual([
      { kind: "ServiceAccount", name: "cocoon-webhook", namespace: NAMESPACE },
    ]);
  });
});

describe("certificates", () => {
  const serving = get(Certificate, "cocoon-webhook-tls");

  test("the serving certificate names the Service and fills the mounted Secret", () => {
    expect(serving.spec?.secretName).toBe("cocoon-webhook-tls");
    expect(serving.spec?.dnsNames).toEqual([
      "cocoon-webhook.cocoon-system.svc",
      "cocoon-webhook.cocoon-system.svc.cluster.local",
    ]);
    expect(serving.spec?.usages).toContain("server auth");
  });

  test("the issuer chain ends in a self-signed Issuer", () => {
    const chain: string[] = [];
    let certificate: ICertificate | undefined = serving;
    while (certificate !== undefined) {
      const issuerName: string = certificate.spec?.issuerRef.name ?? "";
      expect(certificate.spec?.issuerRef.kind).toBe("Issuer");
      const issuer: IIssuer = get(Issuer, issuerName);
      chain.push(issuerName);
      const caSecret: string | undefined = issuer.spec?.ca?.secretName;
      if (caSecret === undefined) {
        expect(issuer.spec?.selfSigned).toEqual({});
        break;
      }
      certificate = objects
        .filter((object) => Certificate.is(object))
        .find((object) => object.spec?.secretName === caSecret);
      expect(certificate?.spec?.isCA, `CA certificate for ${issuerName}`).toBe(true);
    }
    expect(chain).toEqual(["cocoon-webhook-ca", "cocoon-webhook-selfsigned"]);
  });

  test("the serving certificate renews well before the 14-day expiry alert", () => {
    const hours = Number(/^(\d+)h$/.exec(serving.spec?.renewBefore ?? "")?.[1]);
    expect(hours).toBeGreaterThan(14 * 24);
  });
});

describe("Deployment", () => {
  const deployment: IDeployment = get(Deployment, "cocoon-webhook");
  const podSpec = deployment.spec?.template.spec;
  const [container, ...otherContainers] = podSpec?.containers ?? [];
  const env = new Map((container?.env ?? []).map((variable) => [variable.name, variable.value]));

  test("two replicas, one container running `serve`, rolling without losing capacity", () => {
    expect(deployment.spec?.replicas).toBe(2);
    expect(otherContainers).toEqual([]);
    expect(container?.args).toEqual(["serve"]);
    expect(deployment.spec?.strategy?.rollingUpdate?.maxUnavailable).toBe(0);
  });

  test("the image is the project's, tagged with the package version", () => {
    const image = container?.image ?? "";
    expect(imageName(image)).toBe("ghcr.io/cocoonstack/cocoon-webhook");
    expect(image).toBe(`ghcr.io/cocoonstack/cocoon-webhook:${packageJson.version}`);
  });

  test("environment", () => {
    expect(env.get("TLS_CERT")).toBe(`${CERT_DIR}/tls.crt`);
    expect(env.get("TLS_KEY")).toBe(`${CERT_DIR}/tls.key`);
    expect(env.get("LISTEN_ADDR")).toBe(":8443");
    expect(env.get("METRICS_ADDR")).toBe(":9090");
    expect(env.get("DRAIN_DELAY")).toBe("5s");
    expect(env.get("SHUTDOWN_TIMEOUT")).toBe("15s");
    // The identity lists come from one ConfigMap, the webhook's own defaults.
    const identities = findObject(objects, "ConfigMap", "cocoon-webhook-identities");
    for (const [name, value] of [
      ["POD_CREATORS", DEFAULT_POD_CREATORS],
      ["RUNTIME_IDENTITIES", DEFAULT_RUNTIME_IDENTITIES],
    ] as const) {
      const variable = container?.env?.find((candidate) => candidate.name === name);
      expect(variable?.valueFrom?.configMapKeyRef).toEqual({
        name: "cocoon-webhook-identities",
        key: name,
      });
      expect(isRecord(identities.data) ? identities.data[name] : undefined).toBe(value);
    }
    expect(seconds(env.get("APISERVER_TIMEOUT") ?? "")).toBeLessThan(5);
  });

  test("the certificate Secret is mounted read-only as a directory, so rotation reaches it", () => {
    const mount = container?.volumeMounts?.find((candidate) => candidate.mountPath === CERT_DIR);
    expect(mount?.readOnly).toBe(true);
    expect(mount?.subPath).toBeUndefined();
    const volume = podSpec?.volumes?.find((candidate) => candidate.name === mount?.name);
    expect(volume?.secret?.secretName).toBe("cocoon-webhook-tls");
    // 0440 needs the group to be the process's: fsGroup makes it so.
    expect(volume?.secret?.defaultMode).toBe(0o440);
    expect(podSpec?.securityContext?.fsGroup).toBe(65532);
  });

  test("pod and container security contexts", () => {
    expect(podSpec?.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(container?.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(podSpec?.automountServiceAccountToken).toBe(true);
    expect(podSpec?.serviceAccountName).toBe("cocoon-webhook");
    expect(podSpec?.hostNetwork).toBeUndefined();
  });

  test("resources: requests, a memory limit, no CPU limit", () => {
    expect(container?.resources).toEqual({
      // The memory request is sized from measurement (docs/performance.md#memory).
      requests: { cpu: "50m", memory: "96Mi" },
      limits: { memory: "256Mi" },
    });
  });

  test("probes: HTTPS on 8443, /healthz for startup and liveness, /readyz for readiness", () => {
    const httpsPort = container?.ports?.find((port) => port.name === "https");
    expect(httpsPort?.containerPort).toBe(8443);
    const probes = {
      startup: container?.startupProbe?.httpGet,
      liveness: container?.livenessProbe?.httpGet,
      readiness: container?.readinessProbe?.httpGet,
    };
    for (const probe of Object.values(probes)) {
      expect(probe?.scheme).toBe("HTTPS");
      expect(probe?.port === 8443 || probe?.port === httpsPort?.name).toBe(true);
    }
    expect(probes.startup?.path).toBe("/healthz");
    expect(probes.liveness?.path).toBe("/healthz");
    expect(probes.readiness?.path).toBe("/readyz");
  });

  test("the grace period outlasts DRAIN_DELAY + SHUTDOWN_TIMEOUT, and the drain needs no preStop", () => {
    const drain =
      seconds(env.get("DRAIN_DELAY") ?? "") + seconds(env.get("SHUTDOWN_TIMEOUT") ?? "");
    expect(podSpec?.terminationGracePeriodSeconds ?? 30).toBeGreaterThan(drain);
    expect(container?.lifecycle?.preStop).toBeUndefined();
  });

  test("spread across nodes, and never preempted for ordinary pods", () => {
    const labels = deployment.spec?.template.metadata?.labels ?? {};
    const hostSpread = podSpec?.topologySpreadConstraints?.find(
      (constraint) => constraint.topologyKey === "kubernetes.io/hostname",
    );
    expect(hostSpread?.maxSkew).toBe(1);
    expect(hostSpread?.nodeTaintsPolicy).toBe("Honor");
    expect(hostSpread?.labelSelector?.matchLabels).toEqual(
      deployment.spec?.selector.matchLabels ?? {},
    );
    const antiAffinity =
      podSpec?.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution;
    expect(antiAffinity?.[0]?.podAffinityTerm.topologyKey).toBe("kubernetes.io/hostname");
    for (const [key, value] of Object.entries(deployment.spec?.selector.matchLabels ?? {})) {
      expect(labels[key]).toBe(value);
    }
    expect(podSpec?.priorityClassName).toBe("system-cluster-critical");
    const quota = findObject(objects, "ResourceQuota", "cocoon-webhook-critical-pods");
    expect(JSON.stringify(quota.spec)).toContain('"values":["system-cluster-critical"]');
  });
});

describe("PodDisruptionBudget and Service", () => {
  const deployment: IDeployment = get(Deployment, "cocoon-webhook");
  const podLabels = deployment.spec?.template.metadata?.labels ?? {};
  const containerPorts = deployment.spec?.template.spec?.containers[0]?.ports ?? [];

  test("the PDB keeps one replica and selects the webhook pods", () => {
    const pdb: IPodDisruptionBudget = get(PodDisruptionBudget, "cocoon-webhook");
    expect(pdb.spec?.minAvailable).toBe(1);
    expect(pdb.spec?.maxUnavailable).toBeUndefined();
    for (const [key, value] of Object.entries(pdb.spec?.selector?.matchLabels ?? {})) {
      expect(podLabels[key]).toBe(value);
    }
  });

  test("the Service maps 443 to 8443 (https) and 9090 (metrics) onto the pods", () => {
    const service: IService = get(Service, "cocoon-webhook");
    for (const [key, value] of Object.entries(service.spec?.selector ?? {})) {
      expect(podLabels[key]).toBe(value);
    }
    const resolved = (service.spec?.ports ?? []).map((port) => ({
      name: port.name,
      port: port.port,
      target:
        typeof port.targetPort === "string"
          ? containerPorts.find((containerPort) => containerPort.name === port.targetPort)
              ?.containerPort
          : port.targetPort,
    }));
    expect(resolved).toEqual([
      { name: "https", port: 443, target: 8443 },
      { name: "metrics", port: 9090, target: 9090 },
    ]);
  });
});

describe("webhook configurations", () => {
  const mutating: IMutatingWebhookConfiguration = get(
    MutatingWebhookConfiguration,
    "cocoon-webhook",
  );
  const validating: IValidatingWebhookConfiguration = get(
    ValidatingWebhookConfiguration,
    "cocoon-webhook",
  );
  const webhooks = [...(mutating.webhooks ?? []), ...(validating.webhooks ?? [])];
  const byPath = new Map(webhooks.map((webhook) => [webhook.clientConfig.service?.path, webhook]));
  const service: IService = get(Service, "cocoon-webhook");

  test("one webhook per endpoint of the table, registered for exactly the operations it examines", () => {
    expect([...byPath.keys()].sort()).toEqual(
      ENDPOINT_KEYS.map((endpoint) => ENDPOINTS[endpoint].path).sort(),
    );
    for (const endpoint of ENDPOINT_KEYS) {
      const { path } = ENDPOINTS[endpoint];
      const operations = operationsOf(endpoint);
      const registered = new Set(
        (byPath.get(path)?.rules ?? []).flatMap((rule) => rule.operations ?? []),
      );
      expect([...registered].sort(), path).toEqual([...operations].sort());
    }
  });

  test("each admission path in the configuration of its kind, in the table's order", () => {
    const pathsOf = (kind: "mutating" | "validating") =>
      ENDPOINT_KEYS.filter((endpoint) => ENDPOINTS[endpoint].registration.kind === kind).map(
        (endpoint) => ENDPOINTS[endpoint].path,
      );
    expect((mutating.webhooks ?? []).map((webhook) => webhook.clientConfig.service?.path)).toEqual(
      pathsOf("mutating"),
    );
    expect(
      (validating.webhooks ?? []).map((webhook) => webhook.clientConfig.service?.path),
    ).toEqual(pathsOf("validating"));
    expect(new Set(webhooks.map((webhook) => webhook.name)).size).toBe(webhooks.length);
  });

  test("common settings: fail closed, no side effects, 5s, v1 reviews, the Service on 443", () => {
    const httpsPort = service.spec?.ports?.find((port) => port.name === "https")?.port;
    for (const webhook of webhooks) {
      expect(webhook.failurePolicy, webhook.name).toBe("Fail");
      expect(webhook.sideEffects, webhook.name).toBe("None");
      expect(webhook.timeoutSeconds, webhook.name).toBe(5);
      expect(webhook.admissionReviewVersions, webhook.name).toEqual(["v1"]);
      expect(webhook.clientConfig.service?.name).toBe("cocoon-webhook");
      expect(webhook.clientConfig.service?.namespace).toBe(NAMESPACE);
      expect(webhook.clientConfig.service?.port).toBe(httpsPort);
      expect(webhook.clientConfig.caBundle, "injected by cert-manager").toBeUndefined();
      expect(webhook.clientConfig.url).toBeUndefined();
    }
  });

  test("cert-manager injects the serving certificate's CA into both configurations", () => {
    for (const configuration of [mutating, validating]) {
      expect(configuration.metadata?.annotations?.[INJECT_CA_FROM]).toBe(
        "cocoon-system/cocoon-webhook-tls",
      );
    }
  });

  test("rules", () => {
    expect(byPath.get("/mutate")?.rules).toEqual([
      {
        apiGroups: [""],
        apiVersions: ["v1"],
        operations: ["CREATE", "UPDATE"],
        resources: ["pods"],
        scope: "Namespaced",
      },
      {
        apiGroups: [""],
        apiVersions: ["v1"],
        operations: ["UPDATE"],
        resources: ["pods/status"],
        scope: "Namespaced",
      },
      {
        apiGroups: [""],
        apiVersions: ["v1"],
        operations: ["CREATE"],
        resources: ["pods/binding", "bindings"],
        scope: "Namespaced",
      },
    ]);
    expect(byPath.get("/validate")?.rules).toEqual([
      {
        apiGroups: ["apps"],
        apiVersions: ["v1"],
        operations: ["UPDATE"],
        resources: ["deployments", "statefulsets", "deployments/scale", "statefulsets/scale"],
        scope: "Namespaced",
      },
    ]);
    expect(byPath.get("/validate-cocoonset")?.rules).toEqual([
      {
        apiGroups: ["cocoonset.cocoonstack.io"],
        apiVersions: ["v1"],
        operations: ["CREATE", "UPDATE"],
        resources: ["cocoonsets"],
        scope: "Namespaced",
      },
    ]);
    expect(byPath.get("/validate-cocoonhibernation")?.rules).toEqual([
      {
        apiGroups: ["cocoonset.cocoonstack.io"],
        apiVersions: ["v1"],
        operations: ["CREATE"],
        resources: ["cocoonhibernations"],
        scope: "Namespaced",
      },
    ]);
  });

  test("the pod and workload registrations exclude exactly the five recovery namespaces (sandbox-system is gated)", () => {
    for (const path of ["/mutate", "/validate"]) {
      expect(byPath.get(path)?.namespaceSelector, path).toEqual({
        matchExpressions: [
          { key: "kubernetes.io/metadata.name", operator: "NotIn", values: EXCLUDED_NAMESPACES },
        ],
      });
      expect(byPath.get(path)?.objectSelector, path).toBeUndefined();
    }
  });

  test("the CocoonSet and CocoonHibernation registrations have no selectors", () => {
    for (const path of ["/validate-cocoonset", "/validate-cocoonhibernation"]) {
      expect(byPath.get(path)?.namespaceSelector, path).toBeUndefined();
      expect(byPath.get(path)?.objectSelector, path).toBeUndefined();
    }
    expect(byPath.get("/validate-cocoonhibernation")?.matchConditions).toBeUndefined();
  });

  test("matchConditions pre-filter the pod gate and the scale guard", () => {
    expect(byPath.get("/mutate")?.matchConditions?.map((condition) => condition.name)).toEqual([
      "binding-not-by-scheduler",
      "binding-or-gated-or-names-node",
      "vm-pod-gate-field-changed",
      "vm-pod-not-by-pod-creator",
      "vm-pod-not-by-runtime-identity",
    ]);
    expect(
      byPath.get("/validate-cocoonset")?.matchConditions?.map((condition) => condition.name),
    ).toEqual(["spec-changed"]);
    expect(byPath.get("/validate")?.matchConditions?.map((condition) => condition.name)).toEqual([
      "scale-or-cocoon-workload",
      "replicas-go-down",
    ]);
  });

  test("the pod gate's identity lists are the ConfigMap's, written in by the component", () => {
    const conditions = byPath.get("/mutate")?.matchConditions ?? [];
    const expected = podGateConditions(DEFAULT_POD_CREATORS, DEFAULT_RUNTIME_IDENTITIES);
    expect(conditions.map(({ name, expression }) => ({ name, expression }))).toEqual(
      expected.conditions.map(({ name, expression }) => ({
        name,
        expression: asFolded(expression),
      })),
    );
  });

  test.skipIf(KUBECTL === undefined)(
    "an overlay that changes the ConfigMap and lists the component changes the conditions too",
    () => {
      const overlay = mkdtempSync(join(REPO_ROOT, ".overlay-"));
      try {
        writeFileSync(
          join(overlay, "kustomization.yaml"),
          [
            "resources: [../manifests/base]",
            "configMapGenerator:",
            "  - name: cocoon-webhook-identities",
            "    namespace: cocoon-system",
            "    behavior: merge",
            "    options: { disableNameSuffixHash: true }",
            '    literals: ["POD_CREATORS=system:serviceaccount:ops:maker", "RUNTIME_IDENTITIES=system:serviceaccount:ops:vk"]',
            "components: [../manifests/components/platform-identities]",
            "",
          ].join("\n"),
        );
        const rendered = kubectlKustomize(overlay);
        const webhook = findObject(rendered, "MutatingWebhookConfiguration", "cocoon-webhook");
        const expected = podGateConditions(
          "system:serviceaccount:ops:maker",
          "system:serviceaccount:ops:vk",
        );
        expect(JSON.stringify(webhook)).not.toContain("cocoon-operator");
        for (const condition of expected.conditions) {
          expect(JSON.stringify(webhook)).toContain(
            JSON.stringify(asFolded(condition.expression)).slice(1, -1),
          );
        }
      } finally {
        rmSync(overlay, { recursive: true, force: true });
      }
    },
  );

  test("a later mutating webhook cannot slip a marker past the gate", () => {
    expect(mutating.webhooks?.[0]?.reinvocationPolicy).toBe("IfNeeded");
  });
});

describe.skipIf(KUBECTL === undefined)("components/no-match-conditions", () => {
  const withoutConditions = kubectlKustomize("manifests/default-no-match-conditions");

  test("removes the matchConditions and changes nothing else", () => {
    for (const object of withoutConditions) validateSchema(object);
    const stripped = objects.map((object) => {
      const copy = structuredClone(object);
      const webhooks = copy.webhooks;
      if (Array.isArray(webhooks)) {
        for (const webhook of webhooks) {
          if (webhook !== null && typeof webhook === "object" && !Array.isArray(webhook)) {
            delete webhook.matchConditions;
          }
        }
      }
      return copy;
    });
    expect(JSON.stringify(withoutConditions)).not.toContain("matchConditions");
    expect(sortByKey(withoutConditions)).toEqual(sortByKey(stripped));
  });
});

describe("the CRDs of manifests/crds", () => {
  const directory = repoPath("manifests/crds");
  const crds = readdirSync(directory)
    .filter((file) => file.endsWith(".yaml"))
    .flatMap((file) => readYamlDocuments(`${directory}/${file}`));

  test("define the two cocoon resources the webhooks are registered for", () => {
    for (const crd of crds) validateSchema(crd);
    expect(crds.map((crd) => (crd.metadata as { name: string }).name).sort()).toEqual([
      "cocoonhibernations.cocoonset.cocoonstack.io",
      "cocoonsets.cocoonset.cocoonstack.io",
    ]);
  });
});

describe("scripts/kind-e2e.sh", () => {
  test("is valid bash", () => {
    const result = Bun.spawnSync(["bash", "-n", repoPath("scripts/kind-e2e.sh")], {
      stderr: "pipe",
    });
    expect(result.stderr.toString()).toBe("");
    expect(result.exitCode).toBe(0);
  });
});
