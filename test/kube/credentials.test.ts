import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadClusterAccess } from "../../src/kube/cluster-access";
import { createCredentials } from "../../src/kube/credentials";
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
