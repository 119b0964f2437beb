import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKubeApi, NO_KUBE_API_MESSAGE } from "../../src/apiserver/client";
import { COCOONHIBERNATIONS } from "../../src/cocoon/crd-resources";
import { DEPLOYMENTS, STATEFULSETS } from "../../src/kube/api-resources";
import { capturingLogger } from "../support/capturing-logger";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import { kubeApiErrorFrom, metricDeltas, withEnvironment } from "./helpers";

let apiserver: FakeApiserver;
let emptyRoot: string;

beforeAll(async () => {
  apiserver = await startFakeApiserver();
  apiserver.setWorkload("statefulsets", "db", "pg", { kind: "StatefulSet" });
  emptyRoot = mkdtempSync(join(tmpdir(), "no-service-account-"));
});
afterAll(async () => {
  await apiserver.stop();
  rmSync(emptyRoot, { recursive: true, force: true });
});

const NOT_IN_CLUSTER = { KUBERNETES_SERVICE_HOST: undefined, KUBERNETES_SERVICE_PORT: undefined };

describe("choosing the cluster configuration", () => {
  test("KUBECONFIG: the file's server and user", async () => {
    const handle = createKubeApi({ timeoutMs: 3000, kubeconfigPath: apiserver.kubeconfigPath });
    expect(handle.source).toBe("kubeconfig");
    expect(handle.server).toBe(apiserver.url);
    expect(await handle.api.get(STATEFULSETS, { namespace: "db", name: "pg" })).toMatchObject({
      kind: "StatefulSet",
      metadata: { name: "pg", namespace: "db" },
    });
  });

  test("KUBECONFIG wins over the in-cluster service account", async () => {
    const account = apiserver.writeServiceAccountRoot();
    const handle = await withEnvironment(
      { KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" },
      () =>
        createKubeApi({
          timeoutMs: 3000,
          kubeconfigPath: apiserver.kubeconfigPath,
          inClusterRoot: account.root,
        }),
    );
    expect(handle.source).toBe("kubeconfig");
  });

  test("a KUBECONFIG that cannot be read stops start-up with a message naming it", () => {
    expect(() =>
      createKubeApi({ timeoutMs: 3000, kubeconfigPath: "/nonexistent/kubeconfig" }),
    ).toThrow("KUBECONFIG /nonexistent/kubeconfig: cannot load kubeconfig");
  });

  test("a KUBECONFIG that is a FIFO or a device stops start-up at once, naming it", () => {
    const fifo = join(emptyRoot, "kubeconfig.fifo");
    Bun.spawnSync(["mkfifo", fifo]);
    expect(() => createKubeApi({ timeoutMs: 3000, kubeconfigPath: fifo })).toThrow(
      `KUBECONFIG ${fifo}: cannot load kubeconfig: ${fifo} is a FIFO, not a regular file`,
    );
    expect(() => createKubeApi({ timeoutMs: 3000, kubeconfigPath: "/dev/zero" })).toThrow(
      "/dev/zero is a character device",
    );
  });

  test("a user's token-file that is a FIFO stops start-up at once, naming it", () => {
    const fifo = join(emptyRoot, "token.fifo");
    Bun.spawnSync(["mkfifo", fifo]);
    const kubeconfigPath = apiserver.writeKubeconfig({ user: { "token-file": fifo } });
    expect(() => createKubeApi({ timeoutMs: 3000, kubeconfigPath })).toThrow(
      `KUBECONFIG ${kubeconfigPath}: cannot load kubeconfig: ${fifo} is a FIFO, not a regular file`,
    );
  });

  test("a KUBECONFIG without a current context stops start-up", () => {
    const path = join(emptyRoot, "no-context.yaml");
    writeFileSync(path, "apiVersion: v1\nkind: Config\nclusters: []\nusers: []\ncontexts: []\n");
    expect(() => createKubeApi({ timeoutMs: 3000, kubeconfigPath: path })).toThrow(
      `KUBECONFIG ${path}: current context`,
    );
  });

  test("in-cluster: service-account token and ca.crt under the root, KUBERNETES_SERVICE_HOST/PORT", async () => {
    const account = apiserver.writeServiceAccountRoot();
    const handle = await withEnvironment(
      { KUBERNETES_SERVICE_HOST: account.host, KUBERNETES_SERVICE_PORT: account.port },
      () => createKubeApi({ timeoutMs: 3000, inClusterRoot: account.root }),
    );
    expect(handle.source).toBe("in-cluster");
    expect(handle.server).toBe(apiserver.url);
    expect(await handle.api.get(STATEFULSETS, { namespace: "db", name: "pg" })).toMatchObject({
      kind: "StatefulSet",
      metadata: { name: "pg", namespace: "db" },
    });
    expect(apiserver.requests.at(-1)?.authorization).toBe(`Bearer ${apiserver.token}`);
  });

  test("in-cluster variables without a token file: no configuration, with a warning", async () => {
    const { log, lines: logged } = capturingLogger("debug");
    const handle = await withEnvironment(
      { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: "443" },
      () =>
        createKubeApi({
          timeoutMs: 3000,
          inClusterRoot: emptyRoot,
          log,
        }),
    );
    expect(handle.source).toBe("none");
    expect(logged.map(({ level }) => level)).toEqual([40, 40]);
    expect(logged[0]?.msg).toContain("no service-account token");
  });
});

describe("without any cluster configuration", () => {
  test("every call fails with a KubeApiError saying how to configure one, and is counted", async () => {
    const handle = await withEnvironment(NOT_IN_CLUSTER, () =>
      createKubeApi({ timeoutMs: 3000, inClusterRoot: emptyRoot }),
    );
    expect(handle.source).toBe("none");
    expect(handle.server).toBeUndefined();

    const getDeltas = await metricDeltas("get", "deployments", async () => {
      const error = await kubeApiErrorFrom(
        handle.api.get(DEPLOYMENTS, { namespace: "default", name: "web" }),
      );
      expect(error.message).toBe(`GET deployments default/web: ${NO_KUBE_API_MESSAGE}`);
    });
    const listDeltas = await metricDeltas("list", "cocoonhibernations", async () => {
      const error = await kubeApiErrorFrom(handle.api.list(COCOONHIBERNATIONS, "default"));
      expect(error.message).toContain(
        "no Kubernetes API is configured: set KUBECONFIG or run in-cluster",
      );
    });

    expect(getDeltas).toEqual({ outcomes: { error: 1 }, durations: 1 });
    expect(listDeltas).toEqual({ outcomes: { error: 1 }, durations: 1 });
  });
});

describe("modules loaded only for a KUBECONFIG", () => {
  /** The packages under node_modules that a fresh process has loaded (ES modules too) after `script`. */
  function packagesLoadedBy(script: string): string[] {
    const run = Bun.spawnSync(
      [
        process.execPath,
        "-e",
        `${script}
console.log(JSON.stringify(Object.keys(require.cache)));`,
      ],
      { cwd: join(import.meta.dir, "../.."), stdout: "pipe", stderr: "pipe" },
    );
    if (run.exitCode !== 0) throw new Error(run.stderr.toString());
    const loaded = JSON.parse(run.stdout.toString()) as string[];
    const names = loaded.flatMap(
      (path) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1] ?? [],
    );
    return [...new Set(names)];
  }

  test("serving in a cluster loads neither client-node nor the YAML parser", () => {
    const serving = packagesLoadedBy('await import("./src/server/serve-command");');
    expect(serving).toContain("hono");
    expect(serving).not.toContain("@kubernetes/client-node");
    expect(serving).not.toContain("yaml");
  });

  test("a KUBECONFIG loads both", () => {
    const withKubeconfig = packagesLoadedBy(
      `const { loadClusterAccess } = await import("./src/apiserver/cluster-access");
loadClusterAccess({ kubeconfigPath: ${JSON.stringify(apiserver.kubeconfigPath)} });`,
    );
    expect(withKubeconfig).toContain("@kubernetes/client-node");
    expect(withKubeconfig).toContain("yaml");
  });
});
