import { describe, expect, test } from "bun:test";
import {
  isDryRun,
  refuseServiceClientConfig,
  refuseServiceClientConfigInKubectl,
  ServiceClientConfigRefused,
  serviceClientConfigPaths,
} from "../controlplane/client-config-guard";

const service = { name: "cocoon-webhook", namespace: "cocoon-system", path: "/mutate" };
const webhookConfiguration = (clientConfig: unknown) => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "MutatingWebhookConfiguration",
  metadata: { name: "w" },
  webhooks: [{ name: "pods.example", clientConfig }],
});

describe("the control-plane harness refuses Service-mode client configurations", () => {
  test.each<[string, unknown]>([
    ["a webhook configuration", webhookConfiguration({ service })],
    [
      "a CRD conversion webhook",
      {
        kind: "CustomResourceDefinition",
        spec: { conversion: { webhook: { clientConfig: { service } } } },
      },
    ],
    [
      "a JSON patch adding a Service",
      [{ op: "add", path: "/webhooks/0/clientConfig/service", value: service }],
    ],
    [
      "a JSON patch replacing a clientConfig",
      [{ op: "replace", path: "/webhooks/0/clientConfig", value: { service } }],
    ],
    ["a list of objects", { kind: "List", items: [webhookConfiguration({ service })] }],
  ])("%s", (_name, body) => {
    expect(serviceClientConfigPaths(body).length).toBeGreaterThan(0);
    expect(() => refuseServiceClientConfig(body, "it")).toThrow(ServiceClientConfigRefused);
  });

  test.each<[string, unknown]>([
    ["URL mode", webhookConfiguration({ url: "https://127.0.0.1:8443/mutate", caBundle: "Y2E=" })],
    [
      "a namespaceSelector patch",
      [{ op: "add", path: "/webhooks/0/namespaceSelector", value: {} }],
    ],
    [
      "a pod that names a Service in an annotation",
      { metadata: { annotations: { service: "x" } } },
    ],
    [
      "a clientConfig with service null",
      webhookConfiguration({ url: "https://127.0.0.1", service: null }),
    ],
  ])("lets through %s", (_name, body) => {
    expect(() => refuseServiceClientConfig(body, "it")).not.toThrow();
  });

  test("kubectl: stdin, -k renderings and -p patches are all checked", async () => {
    const yaml = `kind: MutatingWebhookConfiguration\nwebhooks:\n  - clientConfig:\n      service: { name: w }\n`;
    const render = async () => yaml;
    await expect(
      refuseServiceClientConfigInKubectl(["apply", "-f", "-"], yaml, render),
    ).rejects.toThrow(ServiceClientConfigRefused);
    await expect(
      refuseServiceClientConfigInKubectl(["apply", "-k", "dir"], undefined, render),
    ).rejects.toThrow("kubectl apply -k dir");
    await expect(
      refuseServiceClientConfigInKubectl(
        [
          "patch",
          "mutatingwebhookconfiguration",
          "w",
          `--patch=${JSON.stringify({ webhooks: [{ clientConfig: { service } }] })}`,
        ],
        undefined,
        render,
      ),
    ).rejects.toThrow(ServiceClientConfigRefused);
    await expect(
      refuseServiceClientConfigInKubectl(["apply", "-f", "-"], "kind: Namespace\n", async () => ""),
    ).resolves.toBeUndefined();
  });

  test("a dry run stores nothing, so it may carry a Service", async () => {
    const yaml = `kind: MutatingWebhookConfiguration\nwebhooks:\n  - clientConfig:\n      service: { name: w }\n`;
    await expect(
      refuseServiceClientConfigInKubectl(
        ["apply", "--dry-run=server", "-f", "-"],
        yaml,
        async () => "",
      ),
    ).resolves.toBeUndefined();
    expect(isDryRun("/apis/x?dryRun=All")).toBe(true);
    expect(isDryRun("/apis/x?dryRunner=All")).toBe(false);
    expect(isDryRun(["apply", "-f", "-"])).toBe(false);
  });
});
