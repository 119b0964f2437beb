/*
 * The chart as a dependency and under a release name of its own: an umbrella
 * chart carries it under Helm 4 and Helm 3 (its `global` values accepted, its
 * `condition` honoured), object names follow the release, nameOverride and
 * fullnameOverride, commonLabels label every object, and serviceAccount
 * chooses the account the webhook runs as. `helm template` is enough here:
 * the schema check and the subchart's values are all client-side.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { goTool, helm3, yamlObjects } from "../../scripts/tools";
import { makeUmbrellaChart } from "../support/umbrella-chart";
import { CLUSTER_APIS, helmTemplate, type Json, only, webhooksOf } from "./render";

const HELMS = [
  ["Helm 4", () => goTool("helm")],
  ["Helm 3", helm3],
] as const;

const nameOf = (object: Json) => String((object.metadata as Json).name);

let umbrella: string;

beforeAll(() => {
  umbrella = makeUmbrellaChart({ commonLabels: { "team.example/owner": "platform" } });
});

afterAll(() => rmSync(umbrella, { recursive: true, force: true }));

function renderUmbrella(helm: string, ...sets: string[]): Json[] {
  const command = [helm, "template", "platform", umbrella, "-n", "cocoon-system", ...CLUSTER_APIS];
  const result = Bun.spawnSync([...command, ...sets.flatMap((set) => ["--set", set])], {
    stdout: "pipe",
    stderr: "pipe",
  });
  if (result.exitCode !== 0) throw new Error(result.stderr.toString());
  return yamlObjects(result.stdout.toString());
}

describe.each(HELMS)("as a subchart of an umbrella chart under %s", (_name, helm) => {
  test("renders with the parent's global values, named from the release", () => {
    const rendered = renderUmbrella(helm());
    const deployment = only(rendered, "Deployment");
    expect(nameOf(deployment)).toBe("platform-cocoon-webhook");
    for (const object of rendered) {
      const labels = (object.metadata as { labels: Json }).labels;
      expect(labels["team.example/owner"], nameOf(object)).toBe("platform");
      expect(labels["app.kubernetes.io/instance"]).toBe("platform");
    }
    const [service] = webhooksOf(rendered).map(
      (webhook) => (webhook.clientConfig as { service: Json }).service,
    );
    expect(service).toMatchObject({ name: "platform-cocoon-webhook", namespace: "cocoon-system" });
  });

  test("the parent's condition switches it off", () => {
    expect(renderUmbrella(helm(), "cocoon-webhook.enabled=false")).toEqual([]);
  });
});

describe("names and labels from the release", () => {
  test("objects are named after the release, or fullnameOverride, and the name label follows nameOverride", () => {
    const rendered = helmTemplate("platform", "nameOverride=vmgate", "audit.cronJob.enabled=true");
    const names = rendered.map(nameOf);
    expect(names).toContain("cocoon-webhook-vmgate");
    expect(names).toContain("cocoon-webhook-vmgate-audit");
    expect(names.filter((name) => !name.startsWith("cocoon-webhook-vmgate"))).toEqual([]);
    const deployment = only(rendered, "Deployment");
    expect((deployment.spec as { selector: Json }).selector).toEqual({
      matchLabels: { "app.kubernetes.io/name": "vmgate" },
    });
    // The anti-affinity and spread constraints select the same pods.
    expect(JSON.stringify((deployment.spec as { template: Json }).template)).not.toContain(
      '"app.kubernetes.io/name":"cocoon-webhook"',
    );

    const overridden = helmTemplate("platform", "fullnameOverride=gate");
    expect(overridden.map(nameOf).filter((name) => !name.startsWith("gate"))).toEqual([]);
    expect(JSON.stringify(overridden)).toContain(
      '"cert-manager.io/inject-ca-from":"platform/gate-tls"',
    );
    expect(JSON.stringify(overridden)).toContain("gate.platform.svc");
  });

  test("serviceAccount: created with annotations, or an existing one bound and used", () => {
    const created = helmTemplate(
      "platform",
      "serviceAccount.annotations.iam\\.example/role=webhook",
    );
    expect((only(created, "ServiceAccount").metadata as Json).annotations).toEqual({
      "iam.example/role": "webhook",
    });
    const existing = helmTemplate(
      "platform",
      "serviceAccount.create=false",
      "serviceAccount.name=platform-webhook",
    );
    expect(existing.map((object) => object.kind)).not.toContain("ServiceAccount");
    const pod = (only(existing, "Deployment").spec as { template: { spec: Json } }).template.spec;
    expect(pod.serviceAccountName).toBe("platform-webhook");
    expect(only(existing, "ClusterRoleBinding").subjects).toEqual([
      { kind: "ServiceAccount", name: "platform-webhook", namespace: "platform" },
    ]);
  });

  test("enabled false renders nothing", () => {
    expect(helmTemplate("platform", "enabled=false")).toEqual([]);
  });
});
