import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKubeApi } from "../../src/apiserver/client";
import { loadClusterAccess } from "../../src/apiserver/cluster-access";
import { createCredentials } from "../../src/apiserver/credentials";
import { COCOONHIBERNATIONS } from "../../src/cocoon/crd-resources";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import { kubeconfigYaml } from "../support/kubeconfig";
import { kubeApiErrorFrom } from "./helpers";

let apiserver: FakeApiserver;
let plainApiserver: FakeApiserver;
let scratch: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "kubeconfig-users-"));
  apiserver = await startFakeApiserver({ clientCertificate: true });
  apiserver.setHibernations("default", []);
  plainApiserver = await startFakeApiserver();
  plainApiserver.setHibernations("default", []);
});
afterAll(async () => {
  await apiserver.stop();
  await plainApiserver.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe("kubeconfig users", () => {
  test("a client certificate from client-certificate-data is presented", async () => {
    const { api } = createKubeApi({ timeoutMs: 3000, kubeconfigPath: apiserver.kubeconfigPath });
    expect(await api.list(COCOONHIBERNATIONS, "default")).toEqual([]);
  });

  test("without the client certificate the handshake fails", async () => {
    const kubeconfigPath = apiserver.writeKubeconfig({ clientCertificate: false });
    const { api } = createKubeApi({ timeoutMs: 3000, kubeconfigPath });
    const error = await kubeApiErrorFrom(api.list(COCOONHIBERNATIONS, "default"));
    expect(error.message).toStartWith(
      `LIST cocoonhibernations in default: cannot reach the apiserver ${apiserver.url}: EPROTO: The TLS handshake failed`,
    );
    expect(error.status).toBeUndefined();
  });

  test("an exec credential plugin supplies the bearer token (client-node runs it)", async () => {
    const credential = JSON.stringify({
      apiVersion: "client.authentication.k8s.io/v1",
      kind: "ExecCredential",
      status: { token: plainApiserver.token },
    });
    const kubeconfigPath = plainApiserver.writeKubeconfig({
      user: {
        exec: {
          apiVersion: "client.authentication.k8s.io/v1",
          command: "/bin/sh",
          args: ["-c", `printf '%s' '${credential}'`],
          interactiveMode: "Never",
        },
      },
    });
    const { api } = createKubeApi({ timeoutMs: 3000, kubeconfigPath });
    expect(await api.list(COCOONHIBERNATIONS, "default")).toEqual([]);
    expect(plainApiserver.requests.at(-1)?.authorization).toBe(`Bearer ${plainApiserver.token}`);
  });

  test("`as` impersonates that user on every call (Impersonate-User)", async () => {
    const webhook = "system:serviceaccount:cocoon-system:cocoon-webhook";
    const kubeconfigPath = plainApiserver.writeKubeconfig({
      user: { token: plainApiserver.token, as: webhook },
    });
    const access = loadClusterAccess({ kubeconfigPath });
    if (!access) throw new Error("no cluster access from the kubeconfig");
    expect(await createCredentials(access, {}).headers()).toEqual({
      Authorization: `Bearer ${plainApiserver.token}`,
      "Impersonate-User": webhook,
    });
  });

  test("a relative tokenFile is read beside the kubeconfig, not in the working directory", async () => {
    const directory = mkdtempSync(join(scratch, "relative-token-"));
    writeFileSync(join(directory, "webhook.token"), plainApiserver.token);
    const kubeconfigPath = join(directory, "kubeconfig.yaml");
    writeFileSync(
      kubeconfigPath,
      kubeconfigYaml(plainApiserver.url, plainApiserver.ca.cert, { tokenFile: "webhook.token" }),
    );
    const { api } = createKubeApi({ timeoutMs: 3000, kubeconfigPath });
    expect(await api.list(COCOONHIBERNATIONS, "default")).toEqual([]);
    expect(plainApiserver.requests.at(-1)?.authorization).toBe(`Bearer ${plainApiserver.token}`);
  });

  test("an auth provider's config.tokenFile is re-read when it rotates, like tokenFile", async () => {
    const tokenFile = join(scratch, "auth-provider.token");
    writeFileSync(tokenFile, plainApiserver.token);
    const kubeconfigPath = plainApiserver.writeKubeconfig({
      user: { "auth-provider": { name: "file", config: { tokenFile } } },
    });
    const { api } = createKubeApi({ timeoutMs: 3000, kubeconfigPath, fileRecheckMs: 0 });
    await api.list(COCOONHIBERNATIONS, "default");
    const rotated = plainApiserver.rotateToken();
    writeFileSync(tokenFile, rotated);
    expect(await api.list(COCOONHIBERNATIONS, "default")).toEqual([]);
    expect(plainApiserver.requests.at(-1)?.authorization).toBe(`Bearer ${rotated}`);
  });

  test.each([
    ["username and password", { username: "admin", password: "secret" }],
    ["a username alone", { username: "admin" }],
    ["a password alone", { password: "secret" }],
  ])("basic authentication (%s) stops start-up, saying what to use instead", (_name, user) => {
    const kubeconfigPath = plainApiserver.writeKubeconfig({ user });
    expect(() => createKubeApi({ timeoutMs: 3000, kubeconfigPath })).toThrow(
      `KUBECONFIG ${kubeconfigPath}: user "test-user" has a username and password ` +
        "(users[].user.username), basic authentication, which the apiserver has not accepted " +
        "since Kubernetes 1.19; give the user a token (token or tokenFile) or a client " +
        "certificate (client-certificate and client-key) instead",
    );
  });
});
