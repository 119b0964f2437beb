import { beforeAll, describe, expect, test } from "bun:test";
import type { ControlPlane } from "./cluster";
import { ORDINARY_USER } from "./install";
import {
  admissionsDuring,
  createNamespace,
  expectCreated,
  messageOf,
  uniqueName,
  workload,
} from "./objects";
import { controlPlaneTier } from "./setup";

let cluster: ControlPlane;
let namespace: string;

beforeAll(async () => {
  cluster = controlPlaneTier().cluster;
  namespace = await createNamespace(cluster, "scale");
});

const KINDS = [
  { kind: "Deployment", resource: "deployments" },
  { kind: "StatefulSet", resource: "statefulsets" },
] as const;

describe.each(KINDS)(
  "the scale-down guard on a $kind through a real apiserver",
  ({ kind, resource }) => {
    const path = (name: string) => `/apis/apps/v1/namespaces/${namespace}/${resource}/${name}`;
    const create = async (replicas: number, cocoon: boolean) => {
      const name = uniqueName(resource.slice(0, -1));
      await expectCreated(
        cluster.request("POST", `/apis/apps/v1/namespaces/${namespace}/${resource}`, {
          as: ORDINARY_USER,
          body: workload(kind, name, replicas, { cocoon }),
        }),
      );
      return name;
    };
    const patchReplicas = (name: string, replicas: number, subresource = "") =>
      cluster.request("PATCH", `${path(name)}${subresource}`, {
        as: ORDINARY_USER,
        contentType: "application/merge-patch+json",
        body: { spec: { replicas } },
      });
    const kubectlScale = (name: string, replicas: number) =>
      cluster.kubectl(["scale", "-n", namespace, `${resource}/${name}`, `--replicas=${replicas}`], {
        as: ORDINARY_USER,
      });

    test("lowering spec.replicas with a PATCH is refused", async () => {
      const name = await create(3, true);
      const counted = await admissionsDuring("validate", async () => {
        const answer = await patchReplicas(name, 2);
        expect(answer.status).toBe(403);
        expect(messageOf(answer)).toContain(
          `cocoon-webhook: spec.replicas: scaling down ${kind} ${namespace}/${name} from 3 to 2 replicas is not allowed`,
        );
      });
      expect(counted).toEqual({ "deny/scale_down": 1 });
    });

    test("kubectl scale down is refused after the webhook GETs the parent with its own token", async () => {
      const name = await create(3, true);
      let stderr = "";
      const counted = await admissionsDuring("validate", async () => {
        const result = await kubectlScale(name, 1);
        expect(result.exitCode).toBe(1);
        stderr = result.stderr;
      });
      expect(stderr).toContain(
        `admission webhook "workloads.cocoon-webhook.cocoonstack.io" denied the request: ` +
          `cocoon-webhook: spec.replicas: scaling down ${kind} ${namespace}/${name} from 3 to 1 replicas`,
      );
      expect(counted).toEqual({ "deny/scale_down": 1 });
      const apiserverGets = await controlPlaneTier()
        .webhook.process()
        .metric("cocoon_webhook_apiserver_requests_total", {
          verb: "get",
          resource,
          outcome: "success",
        });
      expect(apiserverGets).toBeGreaterThan(0);
    });

    test("kubectl scale --replicas=0 (a Scale without spec.replicas) is refused", async () => {
      const name = await create(2, true);
      const result = await kubectlScale(name, 0);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain("from 2 to 0 replicas is not allowed");
    });

    test("scale-ups and unchanged counts never reach the webhook", async () => {
      const name = await create(2, true);
      const counted = await admissionsDuring("validate", async () => {
        expect((await kubectlScale(name, 4)).exitCode).toBe(0);
        await expectCreated(patchReplicas(name, 5));
        await expectCreated(patchReplicas(name, 5, "/scale"));
        await expectCreated(
          cluster.request("PATCH", path(name), {
            as: ORDINARY_USER,
            contentType: "application/merge-patch+json",
            body: { metadata: { labels: { touched: "yes" } } },
          }),
        );
      });
      expect(counted).toEqual({});
    });

    test("a workload without the cocoon toleration scales down freely", async () => {
      const name = await create(3, false);
      const counted = await admissionsDuring("validate", async () => {
        await expectCreated(patchReplicas(name, 2));
        expect((await kubectlScale(name, 1)).exitCode).toBe(0);
      });
      // The Scale carries no template, so only the /scale request reaches the webhook, which reads the parent.
      expect(counted).toEqual({ "skipped/not_cocoon": 1 });
    });
  },
);
