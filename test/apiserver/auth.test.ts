import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKubeApi } from "../../src/apiserver/client";
import { COCOONHIBERNATIONS } from "../../src/cocoon/crd-resources";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import { kubeApiErrorFrom } from "./helpers";

let apiserver: FakeApiserver;
let plainApiserver: FakeApiserver;

beforeAll(async () => {
  apiserver = await startFakeApiserver({ clientCertificate: true });
  apiserver.setHibernations("default", []);
  plainApiserver = await startFakeApiserver();
  plainApiserver.setHibernations("default", []);
});
afterAll(async () => {
  await apiserver.stop();
  await plainApiserver.stop();
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
});
