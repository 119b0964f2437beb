/**
 * The peer: the same webhook written the usual way on Node.js — a Hono app on
 * `node:https` through @hono/node-server, `@hono/zod-validator` over a full
 * schema of each object, and the webhook's rules in plain form. No metrics or
 * logging (cocoon-webhook pays for both; the peer is given the advantage).
 *
 * bench/run.ts bundles it with `bun build --target=node` and runs it under
 * `node` with TLS_CERT, TLS_KEY, LISTEN_PORT, APISERVER_URL, APISERVER_CA
 * and APISERVER_TOKEN in the environment.
 */
import { readFileSync } from "node:fs";
import { Agent, createServer, request as httpsRequest } from "node:https";
import { serve } from "@hono/node-server";
import { zValidator } from "@hono/zod-validator";
import { type Context, Hono } from "hono";
import {
  admissionReviewOf,
  type CocoonSet,
  cocoonSetSchema,
  type Pod,
  podSchema,
  scaleSchema,
  type Workload,
  workloadSchema,
} from "./schemas";

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`peer: ${name} is not set`);
  return value;
}

const COCOON_KEY = "virtual-kubelet.io/provider";
const VM_ANNOTATION = "vm.cocoonstack.io/name";
const POD_CREATORS = new Set(["system:serviceaccount:cocoon-system:cocoon-operator"]);
const PREFIX = "cocoon-webhook: ";

type Verdict = { allowed: true } | { allowed: false; message: string };

function answer(c: Context, apiVersion: string, uid: string, verdict: Verdict) {
  const response = verdict.allowed
    ? { uid, allowed: true }
    : {
        uid,
        allowed: false,
        status: { code: 403, reason: "Forbidden", message: PREFIX + verdict.message },
      };
  return c.json({ apiVersion, kind: "AdmissionReview", response });
}

function invalid(c: Context, issues: readonly { path: PropertyKey[]; message: string }[]) {
  const details = issues.map((issue) => `${issue.path.map(String).join(".")}: ${issue.message}`);
  return c.json({ error: "request body is not a valid AdmissionReview", details }, 400);
}

// --- /mutate -----------------------------------------------------------------

function gated(pod: Pod | null | undefined): boolean {
  if (!pod) return false;
  if ((pod.spec.tolerations ?? []).some((toleration) => toleration.key === COCOON_KEY)) return true;
  return pod.metadata.annotations?.[VM_ANNOTATION] !== undefined;
}

function podGate(
  operation: string,
  username: string,
  pod: Pod | null | undefined,
  old: Pod | null | undefined,
): Verdict {
  if (operation !== "CREATE" && operation !== "UPDATE") return { allowed: true };
  if (!gated(pod)) return { allowed: true };
  if (operation === "UPDATE" && gated(old)) return { allowed: true };
  const owned = (pod?.metadata.ownerReferences ?? []).some((owner) => owner.kind === "CocoonSet");
  if (!owned) return { allowed: false, message: "cocoon pods must be managed by a CocoonSet" };
  if (!POD_CREATORS.has(username)) {
    return { allowed: false, message: `user "${username}" may not create cocoon pods` };
  }
  return { allowed: true };
}

// --- /validate (scale subresource) -------------------------------------------

const apiserverUrl = required("APISERVER_URL");
const apiserverToken = required("APISERVER_TOKEN");
const apiserverAgent = new Agent({
  ca: readFileSync(required("APISERVER_CA"), "utf8"),
  keepAlive: true,
  maxSockets: 64,
});

type ParentFetch = { status: number; workload?: Workload };

function getParent(resource: string, namespace: string, name: string): Promise<ParentFetch> {
  const url = `${apiserverUrl}/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/${resource}/${encodeURIComponent(name)}`;
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(
      url,
      {
        agent: apiserverAgent,
        headers: { Authorization: `Bearer ${apiserverToken}`, Accept: "application/json" },
        timeout: 3000,
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("error", reject);
        incoming.on("end", () => {
          const status = incoming.statusCode ?? 0;
          if (status !== 200) return resolve({ status });
          try {
            const parsed = workloadSchema.safeParse(JSON.parse(Buffer.concat(chunks).toString()));
            resolve(parsed.success ? { status, workload: parsed.data } : { status: 502 });
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    outgoing.on("timeout", () => outgoing.destroy(new Error("apiserver timeout")));
    outgoing.on("error", reject);
    outgoing.end();
  });
}

async function scaleGuard(
  resource: string,
  namespace: string,
  name: string,
  oldReplicas: number,
  newReplicas: number,
): Promise<Verdict> {
  if (newReplicas >= oldReplicas) return { allowed: true };
  let parent: ParentFetch;
  try {
    parent = await getParent(resource, namespace, name);
  } catch (error) {
    return { allowed: false, message: `cannot verify parent workload: ${String(error)}` };
  }
  if (parent.status === 404) return { allowed: true };
  if (!parent.workload) {
    return { allowed: false, message: `cannot verify parent workload: HTTP ${parent.status}` };
  }
  const tolerations = parent.workload.spec.template.spec.tolerations ?? [];
  if (!tolerations.some((toleration) => toleration.key === COCOON_KEY)) return { allowed: true };
  return {
    allowed: false,
    message: `spec.replicas: scaling down ${namespace}/${name} from ${oldReplicas} to ${newReplicas} replicas is not allowed; use CocoonHibernation`,
  };
}

// --- /validate-cocoonset -----------------------------------------------------

const REPO = "[a-z0-9]+(?:(?:__|[._]|-+)[a-z0-9]+)*";
const CLONE_IMAGE = new RegExp(`^${REPO}(?:/${REPO})*(?::[A-Za-z0-9_][A-Za-z0-9._-]{0,127})?$`);
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

interface Vm {
  image?: string | undefined;
  os: string;
  backend: string;
}

function vmProblems(at: string, vm: Vm, mode: string, problems: string[]): void {
  const image = vm.image ?? "";
  if (vm.backend === "firecracker") {
    if (vm.os === "windows") problems.push(`${at}.os: firecracker cannot boot Windows guests`);
    if (/^https?:\/\//i.test(image)) problems.push(`${at}.image: firecracker needs an OCI image`);
    if (mode !== "run") problems.push(`${at}.mode: firecracker supports only mode "run"`);
  }
  if (mode === "clone" && !CLONE_IMAGE.test(image)) {
    problems.push(`${at}.image: must be a registry-relative repo[:tag] in clone mode`);
  }
}

function cocoonSetProblems(set: CocoonSet, namespace: string): string[] {
  const problems: string[] = [];
  const { agent, toolboxes } = set.spec;
  vmProblems("spec.agent", agent, agent.mode, problems);
  const names = new Set<string>();
  toolboxes.forEach((toolbox, index) => {
    const at = `spec.toolboxes[${index}]`;
    if (/^[0-9]+$/.test(toolbox.name) || !LABEL.test(toolbox.name) || toolbox.name.length > 63) {
      problems.push(`${at}.name: must be a non-numeric RFC 1123 label`);
    }
    if (names.has(toolbox.name)) problems.push(`${at}.name: duplicate`);
    names.add(toolbox.name);
    if (toolbox.mode === "static") {
      if (!toolbox.staticIP) problems.push(`${at}.staticIP: required`);
      if (!toolbox.staticVMID) problems.push(`${at}.staticVMID: required`);
      return;
    }
    if (!toolbox.image) problems.push(`${at}.image: required`);
    vmProblems(at, toolbox, toolbox.mode, problems);
    if (toolbox.backend !== agent.backend) problems.push(`${at}.backend: must match the agent's`);
  });
  const setName =
    set.metadata.name || (set.metadata.generateName ? `${set.metadata.generateName}xxxxx` : "");
  if (setName) {
    const members: (string | number)[] = [...toolboxes.map((toolbox) => toolbox.name)];
    for (let slot = 0; slot <= agent.replicas; slot++) members.push(slot);
    for (const member of members) {
      for (const derived of [`${setName}-${member}`, `vk-${namespace}-${setName}-${member}`]) {
        if (derived.length > 63) problems.push(`${derived}: ${derived.length} > 63 characters`);
      }
    }
  }
  return problems;
}

// --- app ---------------------------------------------------------------------

const podReview = admissionReviewOf(podSchema);
const scaleReview = admissionReviewOf(scaleSchema);
const cocoonSetReview = admissionReviewOf(cocoonSetSchema);

const app = new Hono();

app.post(
  "/mutate",
  zValidator("json", podReview, (result, c) => {
    if (!result.success) return invalid(c, result.error.issues);
  }),
  (c) => {
    const { apiVersion, request } = c.req.valid("json");
    const verdict = podGate(
      request.operation,
      request.userInfo.username ?? "",
      request.object,
      request.oldObject,
    );
    return answer(c, apiVersion, request.uid, verdict);
  },
);

app.post(
  "/validate",
  zValidator("json", scaleReview, (result, c) => {
    if (!result.success) return invalid(c, result.error.issues);
  }),
  async (c) => {
    const { apiVersion, request } = c.req.valid("json");
    if (request.operation !== "UPDATE" || request.subResource !== "scale") {
      return answer(c, apiVersion, request.uid, { allowed: true });
    }
    const verdict = await scaleGuard(
      request.resource.resource,
      request.namespace ?? "",
      request.name ?? "",
      request.oldObject?.spec.replicas ?? 0,
      request.object?.spec.replicas ?? 0,
    );
    return answer(c, apiVersion, request.uid, verdict);
  },
);

app.post(
  "/validate-cocoonset",
  zValidator("json", cocoonSetReview, (result, c) => {
    if (!result.success) return invalid(c, result.error.issues);
  }),
  (c) => {
    const { apiVersion, request } = c.req.valid("json");
    if (!request.object)
      return answer(c, apiVersion, request.uid, { allowed: false, message: "no object" });
    const problems = cocoonSetProblems(request.object, request.namespace ?? "");
    const verdict: Verdict =
      problems.length === 0
        ? { allowed: true }
        : { allowed: false, message: `invalid CocoonSet: ${problems.join("; ")}` };
    return answer(c, apiVersion, request.uid, verdict);
  },
);

app.get("/readyz", (c) => c.text("ready"));

const server = serve({
  fetch: app.fetch,
  hostname: "127.0.0.1",
  port: Number(required("LISTEN_PORT")),
  createServer,
  serverOptions: {
    cert: readFileSync(required("TLS_CERT"), "utf8"),
    key: readFileSync(required("TLS_KEY"), "utf8"),
    keepAliveTimeout: 120_000,
  },
});

process.on("SIGTERM", () => {
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 1000).unref();
});
