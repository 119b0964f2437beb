import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments, stringify as toYaml } from "yaml";
import { startWebhook, type WebhookProcess } from "../e2e/harness";
import type { KeyPair, TestCa } from "../support/certs";
import { base64, kubeconfigYaml } from "../support/kubeconfig";
import type { ApiAnswer, ControlPlane, Identity } from "./cluster";

/*
 * cocoon-webhook installed into a real control plane from our own manifests:
 * the operator's CRDs (manifests/crds), the Namespace, and from
 * `kubectl kustomize manifests/default` the ServiceAccount, the RBAC and both
 * webhook configurations. One patch, applied here, differs from production:
 * each webhook's clientConfig is `url: https://127.0.0.1:PORT/<path>` with
 * the test CA in caBundle, where the cluster would use the Service and
 * cert-manager's CA injection. The binary runs with the Deployment's
 * environment and a kubeconfig holding its ServiceAccount's token, so the
 * manifests' RBAC is exactly what it may do; it asks for small LIST pages
 * (LIST_PAGE_SIZE) so paging is exercised.
 */

const REPO_ROOT = join(import.meta.dir, "../..");
const CRD_DIR = join(REPO_ROOT, "manifests/crds");

export const WEBHOOK_NAMESPACE = "cocoon-system";
const WEBHOOK_SERVICE_ACCOUNT = "cocoon-webhook";

/**
 * APISERVER_LIST_PAGE_SIZE for the tier: small, so a namespace of a few
 * CocoonHibernations already takes several LIST pages.
 */
export const LIST_PAGE_SIZE = 2;

/** Someone with no special standing: may create pods, workloads and cocoon objects (test-only RBAC). */
export const USER_GROUP = "cocoon-test:users";
export const ORDINARY_USER: Identity = { user: "alice", groups: [USER_GROUP] };
/** The operator's identity as the manifests' POD_CREATORS name it. */
export const OPERATOR: Identity = {
  user: "system:serviceaccount:cocoon-system:cocoon-operator",
  groups: [USER_GROUP],
};
/** The scheduler's own identity, which the bootstrap RBAC lets bind pods. */
export const SCHEDULER: Identity = { user: "system:kube-scheduler" };

// biome-ignore lint/suspicious/noExplicitAny: rendered manifests, read field by field
type KubeObject = Record<string, any>;

export const yamlDocuments = (objects: readonly KubeObject[]): string =>
  objects.map((object) => toYaml(object)).join("---\n");

export function parseYaml(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((document) => document.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

/** What the tests need from the installed webhook. */
export interface InstalledWebhook {
  /** The running binary; replaced by `restart()`. */
  readonly process: () => WebhookProcess;
  /** The rendered objects of manifests/default, unpatched. */
  readonly manifests: readonly KubeObject[];
  /** What every webhook's clientConfig names in a local run: the URL base and the CA bundle. */
  readonly localClientConfig: { readonly url: string; readonly caBundle: string };
  /** Stops the binary (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts the binary again on the same ports, with the same certificates (and `env` on top). */
  restart(env?: Record<string, string>): Promise<void>;
  /** Deletes the objects installed from manifests/default (the RBAC, the ServiceAccount, the webhook configurations). */
  removeManifests(): Promise<void>;
  /** Installs them again from manifests/default, and reconnects. */
  applyManifests(): Promise<void>;
  /**
   * Puts a fresh token of the webhook's ServiceAccount (after the account
   * was created anew) where the binary reads it, and waits until every
   * configuration is answered by the webhook with working apiserver reads.
   */
  reconnect(): Promise<void>;
}

export interface InstallOptions {
  /** The CA in the webhook configurations' caBundle. */
  readonly ca: TestCa;
  /** The serving pair the binary starts with (a SecretVolume's paths, for rotation). */
  readonly serving: KeyPair;
  /** Ports the clientConfig URLs name and the binary listens on. */
  readonly ports: { readonly admission: number; readonly ops: number };
}

export async function installWebhook(
  cluster: ControlPlane,
  options: InstallOptions,
): Promise<InstalledWebhook> {
  await installCrds(cluster);
  await applyOrThrow(cluster, [
    "apply",
    "--server-side",
    "-k",
    join(REPO_ROOT, "manifests/namespace"),
  ]);
  await applyOrThrow(cluster, ["apply", "--server-side", "-f", "-"], yamlDocuments(testUserRbac()));

  const manifests = await renderDefault(cluster);
  const localClientConfig = {
    url: `https://127.0.0.1:${options.ports.admission}`,
    caBundle: base64(options.ca.cert),
  };
  const installed = manifests
    .filter((object) => INSTALLED_KINDS.has(object.kind))
    .map((object) => withLocalClientConfig(object, localClientConfig));
  const applyManifests = () =>
    applyOrThrow(cluster, ["apply", "--server-side", "-f", "-"], yamlDocuments(installed));
  await applyManifests();

  const tokenFile = join(cluster.dir, "webhook-token");
  await writeServiceAccountToken(cluster, tokenFile);
  const kubeconfig = join(cluster.dir, "webhook.kubeconfig");
  writeFileSync(kubeconfig, kubeconfigYaml(cluster.url, cluster.ca.cert, { tokenFile }));
  const env = {
    ...deploymentEnv(manifests),
    KUBECONFIG: kubeconfig,
    APISERVER_LIST_PAGE_SIZE: String(LIST_PAGE_SIZE),
  };
  const start = (extraEnv: Record<string, string> = {}) =>
    startWebhook({
      ca: options.ca,
      serving: options.serving,
      ports: options.ports,
      env: { ...env, ...extraEnv },
    });
  let current = await start();
  await waitUntilWebhooksAnswer(cluster, () => current);
  const reconnect = async () => {
    await writeServiceAccountToken(cluster, tokenFile);
    await waitUntilWebhooksAnswer(cluster, () => current);
  };
  return {
    process: () => current,
    manifests,
    localClientConfig,
    async stop() {
      await current.stop();
    },
    async restart(extraEnv) {
      current = await start(extraEnv);
      await waitUntilWebhooksAnswer(cluster, () => current);
    },
    async removeManifests() {
      await applyOrThrow(cluster, ["delete", "--wait", "-f", "-"], yamlDocuments(installed));
    },
    async applyManifests() {
      await applyManifests();
      await reconnect();
    },
    reconnect,
  };
}

/** The objects a local run installs for real; the rest are only dry-run (see manifests.test.ts). */
const INSTALLED_KINDS = new Set([
  "ServiceAccount",
  "ClusterRole",
  "ClusterRoleBinding",
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
]);

async function installCrds(cluster: ControlPlane): Promise<void> {
  const files = readdirSync(CRD_DIR).filter((name) => name.endsWith(".yaml"));
  await applyOrThrow(cluster, [
    "apply",
    "--server-side",
    ...files.flatMap((name) => ["-f", join(CRD_DIR, name)]),
  ]);
  const names = files.flatMap((name) =>
    parseYaml(readFileSync(join(CRD_DIR, name), "utf8")).map((crd) => `crd/${crd.metadata.name}`),
  );
  await applyOrThrow(cluster, ["wait", "--for=condition=Established", "--timeout=30s", ...names]);
}

/** manifests/default as kubectl's own kustomize renders it. */
export async function renderDefault(cluster: ControlPlane): Promise<KubeObject[]> {
  const rendered = await cluster.kubectl(["kustomize", join(REPO_ROOT, "manifests/default")]);
  if (rendered.exitCode !== 0) throw new Error(`kubectl kustomize: ${rendered.stderr}`);
  return parseYaml(rendered.stdout);
}

/**
 * The local-run patch: every webhook calls <url>/<its path> and trusts the
 * test CA; nothing else of the object changes.
 */
function withLocalClientConfig(
  object: KubeObject,
  local: InstalledWebhook["localClientConfig"],
): KubeObject {
  if (!Array.isArray(object.webhooks)) return object;
  const { "cert-manager.io/inject-ca-from": _injected, ...annotations } =
    object.metadata.annotations ?? {};
  return {
    ...object,
    metadata: { ...object.metadata, annotations },
    webhooks: object.webhooks.map((webhook: KubeObject) => ({
      ...webhook,
      clientConfig: {
        url: `${local.url}${webhook.clientConfig.service.path}`,
        caBundle: local.caBundle,
      },
    })),
  };
}

/** The container environment of the manifests' Deployment, for the binary to run with. */
function deploymentEnv(manifests: readonly KubeObject[]): Record<string, string> {
  const deployment = manifests.find((object) => object.kind === "Deployment");
  const container = deployment?.spec.template.spec.containers[0];
  const env: Record<string, string> = {};
  const configMaps = new Map(
    manifests
      .filter((object) => object.kind === "ConfigMap")
      .map((object) => [object.metadata.name, object.data ?? {}]),
  );
  for (const variable of container?.env ?? []) {
    if (typeof variable.value === "string") env[variable.name] = variable.value;
    const reference = variable.valueFrom?.configMapKeyRef;
    const value = reference && configMaps.get(reference.name)?.[reference.key];
    if (typeof value === "string") env[variable.name] = value;
  }
  // Where a local run must differ: the files, the ports and the wait before
  // stopping (a pod waits for its endpoints to update; nothing does here).
  for (const local of ["TLS_CERT", "TLS_KEY", "LISTEN_ADDR", "METRICS_ADDR", "DRAIN_DELAY"]) {
    delete env[local];
  }
  return env;
}

/** Writes a TokenRequest token of a ServiceAccount of the webhook's namespace (its own by default) to `tokenFile`. */
export async function writeServiceAccountToken(
  cluster: ControlPlane,
  tokenFile: string,
  account = WEBHOOK_SERVICE_ACCOUNT,
): Promise<void> {
  const answer = await cluster.request(
    "POST",
    `/api/v1/namespaces/${WEBHOOK_NAMESPACE}/serviceaccounts/${account}/token`,
    {
      body: {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenRequest",
        spec: { expirationSeconds: 3600 },
      },
    },
  );
  if (answer.status !== 201) {
    throw new Error(`TokenRequest: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  writeFileSync(tokenFile, answer.body.status.token);
}

/** Test-only RBAC: ORDINARY_USER and OPERATOR may write what the scenarios write. */
function testUserRbac(): KubeObject[] {
  const name = "cocoon-test-users";
  return [
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name },
      rules: [
        {
          apiGroups: [""],
          resources: [
            "pods",
            "pods/binding",
            "bindings",
            "pods/status",
            "pods/ephemeralcontainers",
            "pods/resize",
          ],
          verbs: ["create", "get", "list", "update", "patch", "delete"],
        },
        {
          apiGroups: ["apps"],
          resources: ["deployments", "statefulsets", "deployments/scale", "statefulsets/scale"],
          verbs: ["create", "get", "list", "update", "patch", "delete"],
        },
        {
          apiGroups: ["cocoonset.cocoonstack.io"],
          resources: ["cocoonsets", "cocoonhibernations"],
          verbs: ["create", "get", "list", "update", "patch", "delete"],
        },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: USER_GROUP }],
    },
  ];
}

async function applyOrThrow(
  cluster: ControlPlane,
  args: string[],
  stdin?: string,
): Promise<string> {
  const result = await cluster.kubectl(args, stdin === undefined ? {} : { stdin });
  if (result.exitCode !== 0) throw new Error(`kubectl ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

/**
 * The apiserver picks up webhook configurations a moment after they are
 * stored: waits until a dry-run that each configuration must refuse is
 * refused by this webhook (its message, not a connection failure), or, in
 * warn mode, allowed with its warning.
 */
async function waitUntilWebhooksAnswer(
  cluster: ControlPlane,
  webhook: () => WebhookProcess,
): Promise<void> {
  const probes = [
    () =>
      cluster.request("POST", "/api/v1/namespaces/default/pods?dryRun=All", {
        as: ORDINARY_USER,
        body: probePod(),
      }),
    () =>
      cluster.request(
        "POST",
        "/apis/cocoonset.cocoonstack.io/v1/namespaces/default/cocoonsets?dryRun=All",
        { as: ORDINARY_USER, body: probeCocoonSet() },
      ),
  ];
  // Allowed only once the webhook's own LIST works: its token is valid and its RBAC in place.
  const readsWork = () =>
    cluster.request(
      "POST",
      "/apis/cocoonset.cocoonstack.io/v1/namespaces/default/cocoonhibernations?dryRun=All",
      {
        as: ORDINARY_USER,
        body: {
          apiVersion: "cocoonset.cocoonstack.io/v1",
          kind: "CocoonHibernation",
          metadata: { name: "webhook-probe" },
          spec: { desire: "Hibernate", podRef: { name: "webhook-probe" } },
        },
      },
    );
  const deadline = Date.now() + 30_000;
  // Refused with our message, or (an endpoint in warn mode) allowed with our warning.
  const answeredByUs = (answer: ApiAnswer) =>
    (answer.status === 403 && String(answer.body.message).includes("cocoon-webhook: ")) ||
    answer.warnings.some((warning) => warning.startsWith("cocoon-webhook: "));
  const checks = [
    ...probes.map((probe) => ({ probe, answered: answeredByUs })),
    { probe: readsWork, answered: (answer: ApiAnswer) => answer.status === 201 },
  ];
  for (const { probe, answered } of checks) {
    for (;;) {
      const answer = await probe();
      if (answered(answer)) break;
      if (Date.now() > deadline) {
        throw new Error(
          `the webhook configurations did not take effect within 30 s: last answer ${answer.status} ` +
            `${JSON.stringify(answer.body)}; webhook log: ${webhook().logs().slice(-5).join("\n")}`,
        );
      }
      await Bun.sleep(100); // the poll interval
    }
  }
}

/** A pod with the cocoon toleration and no CocoonSet owner: the pod gate refuses it. */
function probePod(): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "webhook-probe" },
    spec: {
      containers: [{ name: "main", image: "registry.example/agent:1" }],
      tolerations: [{ key: "virtual-kubelet.io/provider", operator: "Exists" }],
    },
  };
}

/** A CocoonSet the CRD schema accepts and the webhook refuses (firecracker cannot boot Windows). */
function probeCocoonSet(): KubeObject {
  return {
    apiVersion: "cocoonset.cocoonstack.io/v1",
    kind: "CocoonSet",
    metadata: { name: "webhook-probe" },
    spec: { agent: { image: "agent:1", mode: "run", backend: "firecracker", os: "windows" } },
  };
}

/**
 * cert-manager is not installed here. Its Issuer and Certificate kinds are
 * registered with schema-less CRDs, so the apiserver checks their
 * apiVersion, kind and metadata; their fields are checked against
 * cert-manager's schemas in test/manifests.
 */
const CERT_MANAGER_KINDS = [
  { kind: "Issuer", plural: "issuers" },
  { kind: "Certificate", plural: "certificates" },
];

export async function registerCertManagerKinds(cluster: ControlPlane): Promise<void> {
  const crds = CERT_MANAGER_KINDS.map(({ kind, plural }) => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.cert-manager.io` },
    spec: {
      group: "cert-manager.io",
      scope: "Namespaced",
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          },
        },
      ],
    },
  }));
  await applyOrThrow(cluster, ["apply", "--server-side", "-f", "-"], yamlDocuments(crds));
  await applyOrThrow(cluster, [
    "wait",
    "--for=condition=Established",
    "--timeout=30s",
    ...crds.map((crd) => `crd/${crd.metadata.name}`),
  ]);
}

/** A server-side apply of YAML that stores nothing and refuses any field the apiserver does not know. */
export const strictServerDryRun = (cluster: ControlPlane, yaml: string) =>
  cluster.kubectl(
    [
      "apply",
      "--dry-run=server",
      "--validate=strict",
      "--server-side",
      "--force-conflicts",
      "-f",
      "-",
    ],
    { stdin: yaml },
  );
