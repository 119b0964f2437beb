import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ENDPOINT_KEYS } from "../../src/endpoints";
import { isRecord, render } from "../manifests/kustomize";

const REPO = join(import.meta.dir, "../..");
const guide = readFileSync(join(REPO, "docs/troubleshooting.md"), "utf8");

interface Registration {
  name: string;
  timeoutSeconds: number;
  clientConfig: { service: { name: string; namespace: string; path: string; port: number } };
}

const registrations = render("manifests/default")
  .filter((object) => String(object.kind).endsWith("WebhookConfiguration"))
  .flatMap((object) => (Array.isArray(object.webhooks) ? object.webhooks : []))
  .filter(isRecord) as unknown as Registration[];

describe("docs/troubleshooting.md", () => {
  test("quotes the apiserver's failure for the pod gate as the manifests would produce it", () => {
    const pods = registrations.find((webhook) => webhook.name.startsWith("pods."));
    if (!pods) throw new Error("no pod gate registration");
    const { name, namespace, path, port } = pods.clientConfig.service;
    const url = `https://${name}.${namespace}.svc:${port}${path}?timeout=${pods.timeoutSeconds}s`;
    expect(guide).toContain(
      `Internal error occurred: failed calling webhook "${pods.name}": failed to call webhook: Post "${url}": …`,
    );
    expect(guide).toContain(
      `admission webhook "${pods.name}" denied the request: cocoon-webhook: `,
    );
  });

  test("names every registration the way the manifests do", () => {
    expect(registrations.length).toBe(ENDPOINT_KEYS.length);
    for (const { name } of registrations) {
      expect(guide).toContain(`\`${name.split(".")[0]}.…\``);
    }
  });

  test.each([
    "no endpoints available for service",
    "connect: connection refused",
    "context deadline exceeded",
    "(Client.Timeout exceeded while awaiting headers)",
    'service "cocoon-webhook" not found',
    "tls: failed to verify certificate: x509: certificate signed by unknown authority",
    "x509: certificate is valid for …, not cocoon-webhook.cocoon-system.svc",
    "x509: certificate has expired or is not yet valid: current time … is after …",
    "read: connection reset by peer",
    "received invalid webhook response",
    "Error creating: …",
    "create Pod NAME-0 in StatefulSet NAME failed error: …",
    "--field-selector reason=FailedCreate",
    "Failed calling webhook, failing closed",
    'error_type="calling_webhook_error"',
  ])("has a symptom, cause and fix for %p", (symptom) => {
    expect(guide).toContain(symptom);
  });

  test("every failure section says how to confirm it and how to fix it", () => {
    const sections = guide.split(/^### /m).slice(1);
    expect(sections.length).toBeGreaterThan(7);
    for (const section of sections) {
      const title = section.split("\n")[0];
      expect(section, title).toContain("**Cause.**");
      expect(section, title).toContain("**Confirm.**");
      expect(section, title).toContain("**Fix.**");
    }
  });

  test("the operations guide links it", () => {
    const operations = readFileSync(join(REPO, "docs/operations.md"), "utf8");
    expect(operations).toContain("(troubleshooting.md)");
  });
});
