/*
 * The chart's values as an operator sets them: what the schema refuses (each
 * value the binary, the apiserver or a node drain would refuse later), the
 * structured values rendered into the webhook's environment, URL mode, the
 * opt-in objects, the overrides, NOTES and the chart's metadata. Run by
 * `make lint-chart`.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Ajv from "ajv";
import { parse, stringify } from "yaml";
import { changesOf } from "../../scripts/chart-changes";
import { CHART_DIR } from "../../scripts/chart-files";
import { runTool, yamlObjects } from "../../scripts/tools";
import { loadConfig } from "../../src/config";
import { admissionReviewSchema } from "../../src/contract/admission-request";
import { ENDPOINT_KEYS, type EndpointKey } from "../../src/endpoints";
import { enforcementName } from "../../src/endpoints/enforcement";
import {
  CLUSTER_APIS,
  containerOf,
  environmentOf,
  helmError,
  helmErrorWith,
  helmTemplate,
  helmTemplateWith,
  type Json,
  only,
  podSpecOf,
  startupAccepts,
  webhooksOf,
} from "./render";

const CHART = join(import.meta.dir, "../..", CHART_DIR);
const schema = JSON.parse(readFileSync(join(CHART, "values.schema.json"), "utf8")) as {
  properties: { env: { properties: Record<string, unknown> } };
};
const URL_MODE = [
  "replicaCount=0",
  "webhook.url=https://192.0.2.10:8443",
  "webhook.caBundle=Q0E=",
  "certificate.source=secret",
];

/** helm with a values file written from `values`. */
function withValuesFile<T>(values: unknown, run: (args: string[]) => T): T {
  const directory = mkdtempSync(join(tmpdir(), "chart-values-"));
  try {
    const file = join(directory, "values.yaml");
    writeFileSync(file, stringify(values));
    return run(["--namespace", "cocoon-system", "-f", file]);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * NOTES.txt as `helm install` prints it (a client-side dry run: no cluster involved, so no
 * cert-manager either; the chart's own certificate unless `sets` choose another).
 */
function notes(...sets: string[]): string {
  const args = ["install", "cocoon-webhook", CHART_DIR, "--dry-run=client", "-n", "cocoon-system"];
  const output = runTool("helm", [
    ...args,
    ...["certificate.source=generate", ...sets].flatMap((set) => ["--set", set]),
  ]);
  return output.slice(output.indexOf("NOTES:"));
}

const kinds = (objects: Json[]) => objects.map((object) => String(object.kind)).sort();

describe("values the webhook, the apiserver or a drain would refuse are refused at render", () => {
  test.each([
    // A misspelt resources key: the apiserver refused the Deployment after the webhooks were in.
    [["resources.limtis.memory=1Gi"], "additional properties 'limtis' not allowed"],
    [["resources.limits.memory=lots"], "/resources/limits/memory"],
    [["resources.limits.memroy=1Gi"], "at '/resources/limits': additional properties 'memroy'"],
    // Values the binary exits 2 on.
    [["env.ENFORCEMENT=mutate=block"], "additional properties 'ENFORCEMENT' not allowed"],
    [["enforcement.mutate=block"], "/enforcement/mutate"],
    [["enforcement.scale=warn"], "additional properties 'scale' not allowed"],
    [["env.APISERVER_TIMEOUT=forever"], "/env/APISERVER_TIMEOUT"],
    [["env.APISERVER_TIMEOUT=0s"], "/env/APISERVER_TIMEOUT"],
    [["env.WEBHOOK_LOG_LEVEL=trace"], "/env/WEBHOOK_LOG_LEVEL"],
    [
      ["env.MAX_REQUEST_BYTES=0"],
      'env.MAX_REQUEST_BYTES: "0" is not a value the webhook starts with',
    ],
    [["env.APISERVER_LIST_PAGE_SIZE=501"], "env.APISERVER_LIST_PAGE_SIZE"],
    [["podCreators[0].identity=a\\,b"], "/podCreators/0/identity"],
    [
      ["podCreators[0].identity=alice", "podCreators[0].kinds[0]=Sandbox"],
      "/podCreators/0/kinds/0",
    ],
    // Images no registry serves.
    [["image.tag=bad tag!"], "/image/tag"],
    [["image.digest=latest"], "/image/digest"],
    [["image.repository=Ghcr.io/Cocoon Webhook"], "/image/repository"],
    // No replica, and nowhere else to call.
    [["replicaCount=0"], "/webhook/url"],
    [["replicaCount=0", "webhook.url=https://192.0.2.10:8443"], "/certificate/source"],
    // A budget no drain could ever meet.
    [["podDisruptionBudget.minAvailable=5"], "podDisruptionBudget.minAvailable (5) must be below"],
    [["podDisruptionBudget.minAvailable=2"], "podDisruptionBudget.minAvailable (2) must be below"],
    [["podDisruptionBudget.minAvailable=100%"], "/podDisruptionBudget/minAvailable"],
    [
      [
        "autoscaling.enabled=true",
        "autoscaling.minReplicas=2",
        "podDisruptionBudget.minAvailable=2",
      ],
      "must be below the replica count (2)",
    ],
    [
      ["autoscaling.enabled=true", "autoscaling.minReplicas=4", "autoscaling.maxReplicas=3"],
      "minReplicas",
    ],
    // What the apiserver refuses in a webhook configuration.
    [["webhook.caBundle=not base64!"], "/webhook/caBundle"],
    [["webhook.url=https://"], "/webhook/url"],
    [["webhook.url=https://192.0.2.10:8443/?debug=1"], "/webhook/url"],
    [["webhook.url=https://192.0.2.10:8443/#top"], "/webhook/url"],
    [["webhook.url=http://192.0.2.10:8443"], "/webhook/url"],
    [["webhook.url=https://user@192.0.2.10:8443"], "/webhook/url"],
    [["ports.admission=9090"], "ports.admission and ports.metrics must differ"],
    [["securityContext.runAsUsr=0"], "additional properties 'runAsUsr' not allowed"],
    [["topologySpreadConstraints[0].maxSkew=1"], "/topologySpreadConstraints/0"],
    // audit in the cluster: what the apiserver would refuse in the CronJob, and misspelt switches.
    [["audit.rbac.enable=true"], "additional properties 'enable' not allowed"],
    [["audit.cronJob.enabled=yes"], "/audit/cronJob/enabled"],
    [["audit.cronJob.schedule=hourly"], "/audit/cronJob/schedule"],
    [["audit.cronJob.schedule=0 * * *"], "/audit/cronJob/schedule"],
    [
      ["audit.cronJob.kubectl.image=registry.k8s.io/kubectl:latest tag"],
      "/audit/cronJob/kubectl/image",
    ],
    [["audit.cronJob.kubectl.image="], "/audit/cronJob/kubectl/image"],
    [["audit.cronJob.resources.limtis.memory=1Gi"], "additional properties 'limtis' not allowed"],
    [["audit.cronJob.kubectl.resources.limits.memory=lots"], "/audit/cronJob/kubectl/resources"],
  ])("%p", (sets, message) => {
    expect(helmError(...sets)).toContain(message);
  });

  test("Kubernetes before 1.30 (no matchConditions) is refused by kubeVersion", () => {
    expect(helmErrorWith(["--kube-version", "1.27.0"])).toContain("kubeVersion");
    expect(helmTemplateWith(["--kube-version", "1.30.0"]).length).toBeGreaterThan(0);
  });
});

describe("values.schema.json's env and start-up agree", () => {
  const validate = new Ajv({ strict: false }).compile(schema.properties.env);
  const texts = [
    ...["", "0", "1", "00", "500", "501", "7340032", "-1", "1e6", "12.5", " 3s", "3 s"],
    ...["0s", "3s", "800ms", "1m30s", "1.5s", "0.5s", "0.0s", "forever", "3", "s", "1h0m"],
    ...["debug", "info", "trace", "auto", "off", "on", "deny", "mutate=warn"],
  ];
  const variables = Object.keys(schema.properties.env.properties);

  test("the schema covers every variable an operator sets (not the chart's own, not the lists)", () => {
    expect(variables).toContain("APISERVER_TIMEOUT");
    expect(variables).not.toContain("TLS_CERT");
    expect(variables).not.toContain("ENFORCEMENT");
    expect(variables).not.toContain("POD_CREATORS");
  });

  test.each(variables)("%s: the schema accepts exactly the texts start-up accepts", (name) => {
    const disagreements = texts.filter(
      (text) => validate({ [name]: text }) !== startupAccepts(name, text),
    );
    expect(disagreements).toEqual([]);
  });

  test("an integer (what --set gives for digits) is rendered as its digits and checked", () => {
    expect(
      environmentOf(helmTemplate("cocoon-system", "env.MAX_REQUEST_BYTES=1048576")),
    ).toMatchObject({ MAX_REQUEST_BYTES: "1048576" });
    // A values file's numbers arrive as floats; they are written as whole numbers.
    const rendered = withValuesFile({ env: { MAX_REQUEST_BYTES: 7340032 } }, helmTemplateWith);
    expect(environmentOf(rendered).MAX_REQUEST_BYTES).toBe("7340032");
    expect(() => loadConfig(environmentOf(rendered))).not.toThrow();
  });
});

describe("structured values, rendered into the environment", () => {
  test("enforcement, one endpoint at a time with --set, becomes ENFORCEMENT", () => {
    const env = environmentOf(
      helmTemplate(
        "cocoon-system",
        "enforcement.mutate=warn",
        "enforcement.validate-cocoonset=warn",
      ),
    );
    const action = (endpoint: EndpointKey) =>
      endpoint === "podGate" || endpoint === "cocoonSet" ? "warn" : "deny";
    expect(env.ENFORCEMENT).toBe(
      ENDPOINT_KEYS.map((endpoint) => `${enforcementName(endpoint)}=${action(endpoint)}`).join(","),
    );
    const { enforcement } = loadConfig(env);
    for (const endpoint of ENDPOINT_KEYS)
      expect(enforcement[endpoint], endpoint).toBe(action(endpoint));
  });

  test("enforcement left empty leaves ENFORCEMENT unset: every endpoint denies", () => {
    const rendered = withValuesFile({ enforcement: null }, helmTemplateWith);
    expect(environmentOf(rendered).ENFORCEMENT).toBeUndefined();
  });

  test("podCreators, a list of identities and kinds, becomes POD_CREATORS", () => {
    const values = {
      podCreators: [
        { identity: "system:serviceaccount:cocoon-system:cocoon-operator" },
        {
          identity: "system:serviceaccount:sandbox-system:sandbox-operator",
          kinds: ["agents.x-k8s.io/Sandbox", "example.com/Workspace"],
        },
      ],
    };
    const env = environmentOf(withValuesFile(values, helmTemplateWith));
    expect(env.POD_CREATORS).toBe(
      "system:serviceaccount:cocoon-system:cocoon-operator," +
        "system:serviceaccount:sandbox-system:sandbox-operator=agents.x-k8s.io/Sandbox|example.com/Workspace",
    );
    expect(() => loadConfig(env)).not.toThrow();
    const set = helmTemplate(
      "cocoon-system",
      "podCreators[0].identity=alice",
      "podCreators[0].kinds[0]=cocoonset.cocoonstack.io/CocoonSet",
    );
    expect(environmentOf(set).POD_CREATORS).toBe("alice=cocoonset.cocoonstack.io/CocoonSet");
  });

  test("an empty podCreators list leaves POD_CREATORS empty: the binary's default", () => {
    const rendered = withValuesFile({ podCreators: [] }, helmTemplateWith);
    const env = environmentOf(rendered);
    expect(env.POD_CREATORS).toBe("");
    expect(loadConfig(env).podCreators).toEqual(loadConfig({}).podCreators);
  });

  test("runtimeIdentities becomes RUNTIME_IDENTITIES, and with podCreators the pod gate's CEL", () => {
    const rendered = withValuesFile(
      {
        podCreators: [{ identity: "system:serviceaccount:platform:vm-operator" }],
        runtimeIdentities: ["system:serviceaccount:platform:vk", "system:node:*"],
      },
      helmTemplateWith,
    );
    const env = environmentOf(rendered);
    expect(env.RUNTIME_IDENTITIES).toBe("system:serviceaccount:platform:vk,system:node:*");
    expect(() => loadConfig(env)).not.toThrow();
    const [pods] = webhooksOf(rendered) as {
      matchConditions: { name: string; expression: string }[];
    }[];
    const expression = (name: string) =>
      pods?.matchConditions.find((condition) => condition.name === name)?.expression ?? "";
    // One value each: the CEL holds the very text the Deployment reads.
    expect(expression("vm-pod-not-by-pod-creator")).toStartWith(
      `!('${env.POD_CREATORS}'.split(',')`,
    );
    expect(expression("vm-pod-not-by-runtime-identity")).toStartWith(
      `!('${env.RUNTIME_IDENTITIES}'.split(',')`,
    );
  });

  test("an empty runtimeIdentities list trusts no runtime identity, in the binary and the CEL alike", () => {
    const rendered = withValuesFile({ runtimeIdentities: [] }, helmTemplateWith);
    const env = environmentOf(rendered);
    expect(env.RUNTIME_IDENTITIES).toBe(",");
    expect(loadConfig(env).runtimeIdentities).toEqual({ usernames: new Set(), boundNodes: false });
    const [pods] = webhooksOf(rendered) as {
      matchConditions: { name: string; expression: string }[];
    }[];
    const runtime = pods?.matchConditions.find(
      (condition) => condition.name === "vm-pod-not-by-runtime-identity",
    );
    expect(runtime?.expression).toStartWith("!(','.split(',')");
  });

  test("an identity that would break the CEL string is refused", () => {
    expect(helmError("runtimeIdentities[0]=o'brien")).toContain("/runtimeIdentities/0");
    expect(helmError('podCreators[0].identity=a"b')).toContain("/podCreators/0/identity");
  });
});

describe("URL mode", () => {
  test("replicaCount 0 with webhook.url installs the registrations and RBAC, no workload", () => {
    const rendered = helmTemplate("dev", ...URL_MODE);
    expect(kinds(rendered)).toEqual([
      "ClusterRole",
      "ClusterRoleBinding",
      "MutatingWebhookConfiguration",
      "ServiceAccount",
      "ValidatingWebhookConfiguration",
    ]);
    for (const webhook of webhooksOf(rendered)) {
      expect(String((webhook.clientConfig as Json).url)).toStartWith("https://192.0.2.10:8443/");
    }
  });

  test("NOTES says where the registrations call, and that nothing runs in the cluster", () => {
    const text = notes(...URL_MODE);
    expect(text).toContain("URL mode: no Deployment runs in the cluster");
    expect(text).toContain("https://192.0.2.10:8443");
    expect(text).not.toContain("rollout");
    expect(text).toContain("REFUSED");
    expect(text).not.toContain("WARNING");
  });
});

describe("URL mode: no value silently ignored", () => {
  test("NOTES gives the external process the environment enforcement, podCreators and env make", () => {
    const text = notes(
      ...URL_MODE,
      "enforcement.mutate=warn",
      "env.WEBHOOK_LOG_LEVEL=debug",
      "podCreators[0].identity=alice",
      "extraEnv[0].name=EXTRA,extraEnv[0].value=on",
    );
    const exported = Object.fromEntries(
      [...text.matchAll(/^ {2}([A-Z_]+)='([^']*)'$/gm)].map((match) => [match[1], match[2]]),
    );
    expect(exported.ENFORCEMENT).toBe(
      ENDPOINT_KEYS.map(
        (endpoint) => `${enforcementName(endpoint)}=${endpoint === "podGate" ? "warn" : "deny"}`,
      ).join(","),
    );
    expect(exported).toMatchObject({
      WEBHOOK_LOG_LEVEL: "debug",
      POD_CREATORS: "alice",
      APISERVER_TIMEOUT: "3s",
      EXTRA: "on",
    });
    // What it prints is what the binary starts with.
    const { EXTRA: _extra, ...environment } = exported;
    expect(loadConfig(environment as Record<string, string>).enforcement.podGate).toBe("warn");
    expect(text).toContain("have no object to apply to");
  });

  test("NOTES says the availability alerts are left out when the PrometheusRule is on", () => {
    expect(notes(...URL_MODE, "monitoring.prometheusRule.enabled=true")).toContain(
      "leaves out CocoonWebhookDown and CocoonWebhookReplicaDown",
    );
  });
});

describe("small traps", () => {
  test("webhook.excludedNamespaces null: only the release's namespace is excluded", () => {
    const rendered = helmTemplate("platform", "webhook.excludedNamespaces=null");
    for (const webhook of webhooksOf(rendered).filter((each) => each.namespaceSelector)) {
      const [excluded] = (webhook.namespaceSelector as { matchExpressions: Json[] })
        .matchExpressions;
      expect(excluded?.values).toEqual(["platform"]);
    }
  });

  test("the audit CronJob's kubectl is within one minor of the tested Kubernetes, pinned by digest", () => {
    const goMod = readFileSync(join(import.meta.dir, "../controlplane/go.mod"), "utf8");
    const tested = /k8s\.io\/kubernetes v1\.(\d+)\./.exec(goMod)?.[1];
    const values = parse(readFileSync(join(CHART, "values.yaml"), "utf8")) as {
      audit: { cronJob: { kubectl: { image: string } } };
    };
    const { image } = values.audit.cronJob.kubectl;
    const [, minor, digest] = /:v1\.(\d+)\.\d+@(sha256:[0-9a-f]{64})$/.exec(image) ?? [];
    expect(digest, image).toBeDefined();
    expect(Math.abs(Number(minor) - Number(tested))).toBeLessThanOrEqual(1);
    const cronJob = only(helmTemplate("cocoon-system", "audit.cronJob.enabled=true"), "CronJob");
    expect(JSON.stringify(cronJob)).toContain(image);
  });
});

describe("NOTES", () => {
  test("under failurePolicy Fail: refused while no replica answers, and how to back out", () => {
    const text = notes();
    expect(text).toContain("requests the registrations cover are REFUSED");
    expect(text).toContain("helm uninstall cocoon-webhook -n cocoon-system");
    expect(text).toContain("--rollback-on-failure");
    expect(text).not.toContain("WARNING");
  });

  test("under failurePolicy Ignore: let through unchecked", () => {
    const text = notes("webhook.failurePolicy=Ignore");
    expect(text).toContain("LET\nTHROUGH unchecked");
    expect(text).not.toContain("REFUSED");
  });

  test("warns with fewer than two replicas", () => {
    expect(notes("replicaCount=1", "podDisruptionBudget.enabled=false")).toContain(
      "WARNING: 1 replica.",
    );
    expect(
      notes(
        "autoscaling.enabled=true",
        "autoscaling.minReplicas=1",
        "podDisruptionBudget.enabled=false",
      ),
    ).toContain("WARNING: 1 replica.");
  });
});

describe("links to the docs", () => {
  const TROUBLESHOOTING = "https://github.com/cocoonstack/cocoon-webhook/blob/";

  test("a -dev chart links to main (no tag of its version exists), a release to its tag", () => {
    expect(notes()).toContain(`${TROUBLESHOOTING}main/docs/troubleshooting.md`);
    const chart = parse(readFileSync(join(CHART, "Chart.yaml"), "utf8")) as Json;
    expect(String(chart.appVersion)).toContain("-");
    const links = parse(
      (chart.annotations as Record<string, string>)["artifacthub.io/links"] ?? "",
    );
    for (const link of links as { url: string }[]) expect(link.url).toContain("/blob/main/");

    const directory = mkdtempSync(join(tmpdir(), "chart-release-"));
    try {
      cpSync(CHART, directory, { recursive: true });
      const chartYaml = join(directory, "Chart.yaml");
      writeFileSync(
        chartYaml,
        readFileSync(chartYaml, "utf8").replace(/^appVersion: .*$/m, "appVersion: 1.2.3"),
      );
      const output = runTool("helm", [
        ...["install", "x", directory, "--dry-run=client"],
        ...["--set", "certificate.source=generate"],
      ]);
      expect(output).toContain(`${TROUBLESHOOTING}v1.2.3/docs/troubleshooting.md`);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe("opt-in objects", () => {
  test("autoscaling adds an HPA on CPU and leaves the Deployment's replicas to it", () => {
    const rendered = helmTemplate(
      "cocoon-system",
      "autoscaling.enabled=true",
      "autoscaling.minReplicas=3",
      "autoscaling.maxReplicas=8",
    );
    const hpa = only(rendered, "HorizontalPodAutoscaler");
    expect(hpa.spec).toMatchObject({
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "cocoon-webhook" },
      minReplicas: 3,
      maxReplicas: 8,
      metrics: [{ type: "Resource", resource: { name: "cpu" } }],
    });
    expect(only(rendered, "Deployment").spec).not.toHaveProperty("replicas");
    expect(kinds(helmTemplate("cocoon-system"))).not.toContain("HorizontalPodAutoscaler");
  });

  test("networkPolicy lets in the two ports (as overridden) and restricts egress only when given", () => {
    const rendered = helmTemplate(
      "cocoon-system",
      "networkPolicy.enabled=true",
      "ports.admission=9443",
      "networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.name=monitoring",
    );
    const policy = only(rendered, "NetworkPolicy").spec as Json;
    expect(policy.policyTypes).toEqual(["Ingress"]);
    expect(policy.ingress).toEqual([
      { ports: [{ port: 9443, protocol: "TCP" }] },
      {
        ports: [{ port: 9090, protocol: "TCP" }],
        from: [{ namespaceSelector: { matchLabels: { name: "monitoring" } } }],
      },
    ]);
    expect(policy.podSelector).toEqual({
      matchLabels: { "app.kubernetes.io/name": "cocoon-webhook" },
    });
    const container = containerOf(rendered);
    expect(container.ports).toContainEqual({ name: "https", containerPort: 9443, protocol: "TCP" });
    expect(environmentOf(rendered).LISTEN_ADDR).toBe(":9443");
    expect(() => loadConfig(environmentOf(rendered))).not.toThrow();
    const egress = helmTemplate(
      "cocoon-system",
      "networkPolicy.enabled=true",
      "networkPolicy.egress[0].ports[0].port=6443",
    );
    expect((only(egress, "NetworkPolicy").spec as Json).policyTypes).toEqual(["Ingress", "Egress"]);
    expect(kinds(helmTemplate("cocoon-system"))).not.toContain("NetworkPolicy");
  });

  test("helm test sends an AdmissionReview the webhook accepts through the Service", () => {
    const pod = only(
      yamlObjects(
        runTool("helm", [
          "template",
          "cocoon-webhook",
          CHART_DIR,
          "-n",
          "platform",
          ...CLUSTER_APIS,
          "--show-only",
          "templates/tests/test-pod.yaml",
        ]),
      ),
      "Pod",
    );
    expect((pod.metadata as { annotations: Json }).annotations["helm.sh/hook"]).toBe("test");
    const [container = {}] = (pod.spec as { containers: Json[] }).containers;
    const env = Object.fromEntries(
      (container.env as { name: string; value: string }[]).map(({ name, value }) => [name, value]),
    );
    const review = admissionReviewSchema.parse(JSON.parse(env.REVIEW ?? ""));
    const script = String((container.args as string[])[0]);
    expect(script).toContain("https://cocoon-webhook.platform.svc:443/mutate");
    expect(script).toContain(`"uid":"${review.request.uid}"`);
    expect(script).toContain("/etc/cocoon/webhook/certs/ca.crt");
  });
});

describe("audit in the cluster", () => {
  const AUDIT_KINDS = ["ClusterRole", "ClusterRoleBinding", "CronJob", "ServiceAccount"];
  const auditObjects = (objects: Json[]) =>
    objects.filter((object) =>
      String((object.metadata as Json).name).startsWith("cocoon-webhook-audit"),
    );
  const jobPodOf = (objects: Json[]) =>
    (only(objects, "CronJob").spec as { jobTemplate: { spec: { template: { spec: Json } } } })
      .jobTemplate.spec.template.spec;

  test("off by default: no account that may list the cluster's pods, no CronJob", () => {
    expect(auditObjects(helmTemplate("cocoon-system"))).toEqual([]);
    expect(kinds(auditObjects(helmTemplate("cocoon-system", "audit.rbac.enabled=true")))).toEqual([
      "ClusterRole",
      "ClusterRoleBinding",
      "ServiceAccount",
    ]);
  });

  test("the CronJob runs the chart's image with podCreators, and the values' schedule, kubectl and resources", () => {
    const digest = `sha256:${"b".repeat(64)}`;
    const values = {
      image: { digest },
      imagePullSecrets: [{ name: "registry" }],
      podCreators: [
        { identity: "system:serviceaccount:platform:vm-operator", kinds: ["example.com/Vm"] },
      ],
      audit: {
        cronJob: {
          enabled: true,
          schedule: "@daily",
          resources: { requests: { cpu: "1" }, limits: { memory: "1Gi" } },
          kubectl: {
            image: `registry.example/kubectl:v1.34.2@${digest}`,
            resources: { limits: { memory: "200Mi" } },
          },
        },
      },
    };
    const rendered = withValuesFile(values, helmTemplateWith);
    expect(kinds(auditObjects(rendered))).toEqual(
      [...AUDIT_KINDS, "ClusterRole", "ClusterRoleBinding"].sort(),
    );
    expect((only(rendered, "CronJob").spec as Json).schedule).toBe("@daily");
    const pod = jobPodOf(rendered);
    const [audit = {}] = pod.initContainers as Json[];
    const [apply = {}] = pod.containers as Json[];
    expect(audit.image).toBe(containerOf(rendered).image);
    expect(audit.image).toBe(`ghcr.io/cocoonstack/cocoon-webhook@${digest}`);
    // It judges pods with the creators the webhook admits: the same ConfigMap.
    expect(audit.env).toEqual([
      {
        name: "POD_CREATORS",
        valueFrom: { configMapKeyRef: { name: "cocoon-webhook-identities", key: "POD_CREATORS" } },
      },
    ]);
    expect(environmentOf(rendered).POD_CREATORS).toBe(
      "system:serviceaccount:platform:vm-operator=example.com/Vm",
    );
    // Helm merges maps: the request for memory the values left out keeps its default.
    expect(audit.resources).toEqual({
      requests: { cpu: "1", memory: "128Mi" },
      limits: { memory: "1Gi" },
    });
    expect(apply.image).toBe(`registry.example/kubectl:v1.34.2@${digest}`);
    expect(apply.resources).toEqual({
      requests: { cpu: "50m", memory: "64Mi" },
      limits: { memory: "200Mi" },
    });
    expect(pod.imagePullSecrets).toEqual([{ name: "registry" }]);
  });

  test("in URL mode the CronJob still has the identities' ConfigMap to read", () => {
    const rendered = helmTemplate("dev", ...URL_MODE, "audit.cronJob.enabled=true");
    const identities = rendered.find(
      (object) =>
        object.kind === "ConfigMap" &&
        (object.metadata as Json).name === "cocoon-webhook-identities",
    );
    expect(String((identities?.data as Json | undefined)?.POD_CREATORS)).toContain(
      "cocoon-operator",
    );
  });

  test("in another namespace, the account, its bindings and the CronJob are the release's", () => {
    const rendered = helmTemplate("platform", "audit.cronJob.enabled=true");
    for (const object of auditObjects(rendered)) {
      if (object.kind === "ServiceAccount" || object.kind === "CronJob") {
        expect((object.metadata as Json).namespace).toBe("platform");
      }
      if (object.kind === "ClusterRoleBinding") {
        expect(object.subjects).toEqual([
          { kind: "ServiceAccount", name: "cocoon-webhook-audit", namespace: "platform" },
        ]);
      }
    }
  });
});

describe("overrides of the pod", () => {
  test("affinity, topology spread, security contexts: the manifests' by default; lists replaced, maps merged", () => {
    const defaults = podSpecOf(helmTemplate("cocoon-system"));
    expect(defaults.affinity).toHaveProperty("podAntiAffinity");
    const rendered = withValuesFile(
      {
        affinity: {
          nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} },
          podAntiAffinity: null,
        },
        topologySpreadConstraints: null,
        podSecurityContext: { runAsUser: 1000 },
        securityContext: { readOnlyRootFilesystem: false },
      },
      helmTemplateWith,
    );
    const pod = podSpecOf(rendered);
    expect(Object.keys(pod.affinity as Json)).toEqual(["nodeAffinity"]);
    expect(pod).not.toHaveProperty("topologySpreadConstraints");
    // Merged: the rest of the manifests' pod securityContext stays.
    expect(pod.securityContext).toMatchObject({
      runAsUser: 1000,
      runAsNonRoot: true,
      fsGroup: 65532,
    });
    expect((containerOf(rendered).securityContext as Json).readOnlyRootFilesystem).toBe(false);
  });
});

describe("chart metadata", () => {
  const chart = parse(readFileSync(join(CHART, "Chart.yaml"), "utf8")) as Json;

  test("kubeVersion, icon, keywords, maintainers and Artifact Hub annotations", () => {
    expect(chart.kubeVersion).toBe(">=1.30.0-0");
    expect(String(chart.icon)).toStartWith("https://");
    expect(chart.keywords).toContain("admission-webhook");
    expect((chart.maintainers as Json[]).length).toBeGreaterThan(0);
    const annotations = chart.annotations as Record<string, string>;
    const links = parse(annotations["artifacthub.io/links"] ?? "") as {
      name: string;
      url: string;
    }[];
    expect(links.map((link) => link.name)).toEqual(["Installation", "Operations", "Changelog"]);
    const [image] = parse(annotations["artifacthub.io/images"] ?? "") as { image: string }[];
    expect(image?.image).toBe(String(containerOf(helmTemplate("cocoon-system")).image));
  });

  test("Artifact Hub changes: the CHANGELOG entry of the chart's version, bullet by bullet", () => {
    const changelog = [
      "## [Unreleased]\n\n### Added\n\n- not yet\n",
      "## [1.2.3] - 2026-01-01\n\n### Added\n\n- one,\n  continued\n\n### Fixed\n\n- two\n",
      "## [1.2.2] - 2025-12-01\n\n### Added\n\n- older\n",
    ].join("\n");
    expect(changesOf(changelog, "1.2.3")).toEqual([
      { kind: "added", description: "one, continued" },
      { kind: "fixed", description: "two" },
    ]);
    // A development version's changes are under Unreleased: no annotation.
    expect(changesOf(changelog, "1.3.0-dev")).toEqual([]);
  });

  test("helm show readme prints the chart's README", () => {
    const readme = runTool("helm", ["show", "readme", CHART_DIR]);
    expect(readme).toContain("--rollback-on-failure");
    expect(readme).toContain("--atomic");
  });
});
