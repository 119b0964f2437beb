import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadClusterAccess } from "../../src/apiserver/cluster-access";
import { createCredentials } from "../../src/apiserver/credentials";
import { capturingLogger } from "../support/capturing-logger";
import { createTestCa } from "../support/certs";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import { withEnvironment } from "./helpers";

let apiserver: FakeApiserver;

beforeAll(async () => {
  apiserver = await startFakeApiserver();
});

afterAll(async () => {
  await apiserver.stop();
});

async function inClusterCredentials() {
  const root = apiserver.writeServiceAccountRoot();
  const access = await withEnvironment(
    { KUBERNETES_SERVICE_HOST: root.host, KUBERNETES_SERVICE_PORT: root.port },
    () => loadClusterAccess({ inClusterRoot: root.root }),
  );
  if (!access) throw new Error("no cluster access from the service-account root");
  return { root, credentials: createCredentials(access, { recheckMs: 0 }) };
}

describe("apiserver credentials, reused between calls", () => {
  test("the same headers object until the token file rotates, then one with the new token", async () => {
    const { credentials } = await inClusterCredentials();
    const first = await credentials.headers();
    expect(await credentials.headers()).toBe(first);
    const rotated = apiserver.rotateToken();
    const after = await credentials.headers();
    expect(after).not.toBe(first);
    expect(after.Authorization).toBe(`Bearer ${rotated}`);
    expect(await credentials.headers()).toBe(after);
  });

  test("the same TLS options until the CA file changes, then ones with the new CA", async () => {
    const { root, credentials } = await inClusterCredentials();
    const first = credentials.tls();
    expect(first).toMatchObject({ rejectUnauthorized: true, ca: apiserver.ca.cert });
    expect(credentials.tls()).toBe(first);
    const other = createTestCa("rotated-cluster-ca");
    writeFileSync(
      join(root.root, "var/run/secrets/kubernetes.io/serviceaccount/ca.crt"),
      other.cert,
    );
    const after = credentials.tls();
    expect(after).not.toBe(first);
    expect(after.ca).toBe(other.cert);
  });
});

describe("an unusable cluster CA", () => {
  const caPath = (root: string) =>
    join(root, "var/run/secrets/kubernetes.io/serviceaccount/ca.crt");

  test.each([
    ["emptied", ""],
    ["not PEM", "garbage\n"],
    [
      "a PEM block that is no certificate",
      "-----BEGIN CERTIFICATE-----\nbm9wZQ==\n-----END CERTIFICATE-----\n",
    ],
  ])("%s after start: the last good CA stays in use, one warning", async (_name, content) => {
    const { log, lines } = capturingLogger("debug");
    const root = apiserver.writeServiceAccountRoot();
    const access = await withEnvironment(
      { KUBERNETES_SERVICE_HOST: root.host, KUBERNETES_SERVICE_PORT: root.port },
      () => loadClusterAccess({ inClusterRoot: root.root }),
    );
    if (!access) throw new Error("no cluster access from the service-account root");
    const credentials = createCredentials(access, {
      recheckMs: 0,
      log,
    });
    const first = credentials.tls();
    writeFileSync(caPath(root.root), content);
    expect(credentials.tls()).toBe(first);
    expect(credentials.tls().ca).toBe(apiserver.ca.cert);
    expect(lines.map(({ level, msg }) => ({ level, msg }))).toEqual([
      { level: 40, msg: "cannot use the changed cluster CA; keeping the previous one" },
    ]);
  });

  test("at start, a CA file that is empty stops it, naming the file", async () => {
    const root = apiserver.writeServiceAccountRoot();
    writeFileSync(caPath(root.root), "");
    const access = await withEnvironment(
      { KUBERNETES_SERVICE_HOST: root.host, KUBERNETES_SERVICE_PORT: root.port },
      () => loadClusterAccess({ inClusterRoot: root.root }),
    );
    if (!access) throw new Error("no cluster access from the service-account root");
    expect(() => createCredentials(access, { recheckMs: 0 })).toThrow(
      `cannot read the cluster CA ${caPath(root.root)}: it is empty`,
    );
  });

  test("inline certificate-authority-data that is no certificate stops it", () => {
    const access = loadClusterAccess({
      kubeconfigPath: apiserver.writeKubeconfig({ caPem: "not a certificate" }),
    });
    if (!access) throw new Error("no cluster access from the kubeconfig");
    expect(() => createCredentials(access, { recheckMs: 0 })).toThrow(
      "cannot use the cluster CA of the kubeconfig (certificate-authority-data): it holds no PEM certificate",
    );
  });
});
