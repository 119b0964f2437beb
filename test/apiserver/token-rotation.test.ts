import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { renameSync, rmSync, symlinkSync } from "node:fs";
import { createKubeApi } from "../../src/apiserver/client";
import { COCOONHIBERNATIONS } from "../../src/cocoon/crd-resources";
import type { KubeApi } from "../../src/contract/reads";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import { kubeApiErrorFrom, withEnvironment } from "./helpers";

let apiserver: FakeApiserver;

beforeAll(async () => {
  apiserver = await startFakeApiserver({ tokenFile: true });
  apiserver.setHibernations("default", [{ metadata: { name: "vm-0" } }]);
});
afterAll(() => apiserver.stop());

describe("a rotated bearer-token file is picked up without a restart", () => {
  test("kubeconfig user with tokenFile", async () => {
    const { api } = createKubeApi({
      timeoutMs: 3000,
      kubeconfigPath: apiserver.kubeconfigPath,
      fileRecheckMs: 0,
    });
    const first = apiserver.token;
    await api.list(COCOONHIBERNATIONS, "default");

    const second = apiserver.rotateToken();
    expect(await api.list(COCOONHIBERNATIONS, "default")).toHaveLength(1);

    expect(apiserver.requests.slice(-2).map((request) => request.authorization)).toEqual([
      `Bearer ${first}`,
      `Bearer ${second}`,
    ]);
  });

  test("in-cluster token: a 401 makes the next call re-read the file at once", async () => {
    const account = apiserver.writeServiceAccountRoot();
    const { api } = await withEnvironment(
      { KUBERNETES_SERVICE_HOST: account.host, KUBERNETES_SERVICE_PORT: account.port },
      () => createKubeApi({ timeoutMs: 3000, inClusterRoot: account.root, fileRecheckMs: 60_000 }),
    );
    await api.list(COCOONHIBERNATIONS, "default");

    const rotated = apiserver.rotateToken();
    const stale = await kubeApiErrorFrom(api.list(COCOONHIBERNATIONS, "default"));
    expect(stale.status).toBe(401);

    expect(await api.list(COCOONHIBERNATIONS, "default")).toHaveLength(1);
    expect(apiserver.requests.at(-1)?.authorization).toBe(`Bearer ${rotated}`);
  });

  /** A client that has read the token once, then `change` with the token file moved aside. */
  async function withTokenFileMoved(
    change: (api: KubeApi, tokenFilePath: string) => Promise<void>,
  ): Promise<void> {
    const { api } = createKubeApi({
      timeoutMs: 3000,
      kubeconfigPath: apiserver.kubeconfigPath,
      fileRecheckMs: 0,
    });
    await api.list(COCOONHIBERNATIONS, "default");
    const tokenFilePath = apiserver.tokenFilePath ?? "";
    renameSync(tokenFilePath, `${tokenFilePath}.moved`);
    try {
      await change(api, tokenFilePath);
    } finally {
      rmSync(tokenFilePath, { force: true });
      renameSync(`${tokenFilePath}.moved`, tokenFilePath);
    }
  }

  test("a token file that disappears keeps the last good token", async () => {
    await withTokenFileMoved(async (api) => {
      expect(await api.list(COCOONHIBERNATIONS, "default")).toHaveLength(1);
    });
  });

  test("a token file swapped for a FIFO or a device keeps the last good token, without blocking", async () => {
    await withTokenFileMoved(async (api, tokenFilePath) => {
      Bun.spawnSync(["mkfifo", tokenFilePath]);
      expect(await api.list(COCOONHIBERNATIONS, "default")).toHaveLength(1);
      rmSync(tokenFilePath);
      symlinkSync("/dev/zero", tokenFilePath);
      expect(await api.list(COCOONHIBERNATIONS, "default")).toHaveLength(1);
    });
  });
});
