/*
 * The certificate sources: cert-manager (the default) is required to be
 * there at install, with an error that names the way out; generate makes a CA
 * and a serving certificate for the Service and fills every caBundle with that
 * CA; secret needs the CA given. Rendering only: test/controlplane/helm.test.ts
 * upgrades a generated release on a real apiserver.
 */
import { describe, expect, test } from "bun:test";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { CHART_DIR } from "../../scripts/chart-files";
import { runTool } from "../../scripts/tools";
import { helmError, helmTemplate, type Json, only, webhooksOf } from "./render";

const decode = (base64: string) => Buffer.from(base64, "base64").toString("utf8");

describe("certificate.source", () => {
  test("cert-manager missing from the cluster: refused, naming cert-manager and generate", () => {
    // What install and upgrade see on a cluster that serves no cert-manager.io/v1.
    const render = () => runTool("helm", ["template", "cocoon-webhook", CHART_DIR]);
    expect(render).toThrow();
    let message = "";
    try {
      render();
    } catch (error) {
      message = String(error).replace(/\s+/g, " ");
    }
    expect(message).toContain("certificate.source is cert-manager");
    expect(message).toContain("no cert-manager.io/v1 API");
    expect(message).toContain("install cert-manager first");
    expect(message).toContain("certificate.source=generate");
  });

  test("helm lint (no release being installed) does not need cert-manager", () => {
    expect(runTool("helm", ["lint", "--strict", CHART_DIR])).toContain("0 chart(s) failed");
  });

  test("generate: a CA and a serving certificate for the Service, the CA in every caBundle", () => {
    const rendered = helmTemplate(
      "platform",
      "certificate.source=generate",
      "fullnameOverride=gate",
    );
    expect(rendered.map((object) => object.kind)).not.toContain("Certificate");
    expect(JSON.stringify(rendered)).not.toContain("inject-ca-from");
    const secret = only(rendered, "Secret");
    expect(secret.type).toBe("kubernetes.io/tls");
    expect((secret.metadata as Json).name).toBe("gate-tls");
    const data = secret.data as Record<string, string>;
    const ca = new X509Certificate(decode(data["ca.crt"] ?? ""));
    const serving = new X509Certificate(decode(data["tls.crt"] ?? ""));
    expect(ca.ca).toBe(true);
    expect(serving.verify(ca.publicKey)).toBe(true);
    expect(serving.subjectAltName).toContain("DNS:gate.platform.svc");
    expect(serving.checkPrivateKey(createPrivateKey(decode(data["tls.key"] ?? "")))).toBe(true);
    const bundles = webhooksOf(rendered).map((webhook) => (webhook.clientConfig as Json).caBundle);
    expect(bundles.length).toBe(4);
    expect(new Set(bundles)).toEqual(new Set([data["ca.crt"]]));
    // The Deployment mounts that Secret.
    expect(JSON.stringify(only(rendered, "Deployment"))).toContain('"secretName":"gate-tls"');
    const days = (Date.parse(serving.validTo) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(3640);
  });

  test("generate: the validity in days is a value", () => {
    const rendered = helmTemplate(
      "platform",
      "certificate.source=generate",
      "certificate.generate.validityDays=400",
    );
    const data = only(rendered, "Secret").data as Record<string, string>;
    const serving = new X509Certificate(decode(data["tls.crt"] ?? ""));
    const days = (Date.parse(serving.validTo) - Date.now()) / 86_400_000;
    expect(Math.round(days)).toBe(400);
  });

  test("secret: the CA must be given, and the message names the other choice", () => {
    expect(helmError("certificate.source=secret")).toContain(
      "webhook.caBundle is required with certificate.source secret",
    );
    expect(helmError("certificate.source=secret")).toContain("certificate.source generate");
    expect(helmError("certificate.source=vault")).toContain("/certificate/source");
  });

  test("URL mode takes only a certificate of your own (its process is not the Service)", () => {
    expect(
      helmError(
        "replicaCount=0",
        "webhook.url=https://192.0.2.10:8443",
        "certificate.source=generate",
      ),
    ).toContain("/certificate/source");
  });
});
