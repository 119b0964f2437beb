import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readReview, type WebhookProcess } from "../e2e/harness";
import {
  type AdmissionReviewBody,
  admissionReview,
  scaleReview,
} from "../support/admission-review";
import { eventually, waitUntil } from "../support/eventually";
import type { FakeApiserver, FakeFailure } from "../support/fake-apiserver";
import {
  cocoonSetObject,
  cocoonSetReview,
  cocoonWorkload,
  gatedPodReview,
  hibernationReview,
} from "./bodies";
import { CHAOS_ENABLED, percentile, postWithFetch, recordFigures, round, rssKib } from "./support";

const APISERVER_TIMEOUT_MS = 1000;
const BOUND_MS = APISERVER_TIMEOUT_MS + 250;
const PER_FAULT = 5;

/** A hand-made pod created straight onto a node by name: the gate must GET the node. */
const podOnNodeReview = (): AdmissionReviewBody =>
  admissionReview({
    namespace: "team-a",
    name: "hand-0",
    username: "alice",
    object: {
      metadata: { name: "hand-0", namespace: "team-a" },
      spec: { nodeName: "vk-cocoon-1", containers: [{ name: "c", image: "busybox" }] },
    },
  });

interface Answer {
  readonly status: number;
  readonly allowed: boolean | undefined;
  readonly message: string;
  readonly latencyMs: number;
}

type Fault =
  | { readonly name: string; readonly failure: FakeFailure | ((decoyUrl: string) => FakeFailure) }
  | { readonly name: string; readonly failure: "stopped" | "blackhole" };

const LIST_KIND = { apiVersion: "cocoonset.cocoonstack.io/v1", kind: "CocoonHibernationList" };

const FAULTS: readonly Fault[] = [
  { name: "slow (2.5 s)", failure: { kind: "slow", delayMs: 2500 } },
  { name: "stalled body (2.5 s)", failure: { kind: "stall-body", delayMs: 2500 } },
  { name: "connection reset", failure: { kind: "reset" } },
  { name: "HTTP 500", failure: { kind: "status", status: 500 } },
  { name: "HTTP 429", failure: { kind: "status", status: 429 } },
  { name: "HTTP 403", failure: { kind: "status", status: 403 } },
  // Hostile or broken answers: each would have allowed a scale-down or a duplicate when trusted.
  {
    name: "301 redirect to a path that answers 404 / an empty list",
    failure: {
      kind: "redirect",
      status: 301,
      location: "/apis/cocoonset.cocoonstack.io/v1/namespaces/empty/cocoonhibernations",
    },
  },
  {
    name: "307 redirect to a plain-HTTP server answering {}",
    failure: (decoyUrl) => ({ kind: "redirect", status: 307, location: `${decoyUrl}/x` }),
  },
  { name: "200 with {}", failure: { kind: "answer", body: {} } },
  {
    name: "200 with a Status body",
    failure: { kind: "answer", body: { apiVersion: "v1", kind: "Status", status: "Success" } },
  },
  {
    name: "200 with a ConfigMap (wrong kind)",
    failure: {
      kind: "answer",
      body: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "agents", namespace: "team-a" },
      },
    },
  },
  {
    name: "200 with a list whose continue token never ends",
    failure: { kind: "answer", body: { ...LIST_KIND, metadata: { continue: "again" }, items: [] } },
  },
  { name: "200 with a 64 MiB body", failure: { kind: "oversized", bytes: 64 * 1024 * 1024 } },
  { name: "stopped (connection refused)", failure: "stopped" },
  { name: "black hole (accepts, never answers)", failure: "blackhole" },
];

describe.skipIf(!CHAOS_ENABLED)("chaos: apiserver faults", () => {
  let apiserver: FakeApiserver;
  let webhook: WebhookProcess;
  let blackhole: { stop(closeActiveConnections?: boolean): void } | undefined;
  let decoy: { readonly url: string; hits(): number; stop(): Promise<void> };
  const held: { end(): void }[] = [];

  beforeAll(async () => {
    const { startDecoyServer, startFakeApiserver } = await import("../support/fake-apiserver");
    const { startWebhook } = await import("../e2e/harness");
    apiserver = await startFakeApiserver();
    decoy = startDecoyServer(200, {});
    apiserver.setWorkload("deployments", "team-a", "agents", cocoonWorkload(3));
    webhook = await startWebhook({
      env: {
        KUBECONFIG: apiserver.kubeconfigPath,
        APISERVER_TIMEOUT: `${APISERVER_TIMEOUT_MS}ms`,
        WEBHOOK_LOG_LEVEL: "info",
      },
    });
  });
  afterAll(async () => {
    await webhook?.stop("SIGKILL");
    for (const socket of held) socket.end();
    blackhole?.stop(true);
    await apiserver?.stop().catch(() => {});
    await decoy?.stop();
  });

  async function decide(path: string, body: AdmissionReviewBody): Promise<Answer> {
    const t0 = performance.now();
    const response = await webhook.post(`${path}?timeout=5s`, body);
    const answer = await readReview(response);
    const latencyMs = performance.now() - t0;
    expect(answer.response?.uid).toBe(body.request.uid);
    return {
      status: response.status,
      allowed: answer.response?.allowed,
      message: answer.response?.status?.message ?? "",
      latencyMs,
    };
  }

  /** Pod-gate and CocoonSet reviews back to back (5 ms apart) until stopped: their latencies. */
  function backgroundTraffic() {
    const latencies: number[] = [];
    const failures: string[] = [];
    let stopping = false;
    const deadline = Date.now() + 60_000;
    const loop = async (path: string, make: () => AdmissionReviewBody) => {
      while (!stopping && Date.now() < deadline) {
        const body = make();
        const outcome = await postWithFetch(
          { url: webhook.admissionUrl, ca: webhook.ca.cert },
          path,
          JSON.stringify(body),
          body.request.uid,
        );
        if (outcome.ok) latencies.push(outcome.latencyMs);
        else failures.push(outcome.error ?? "failed");
        await Bun.sleep(5); // deliberate: the background rate
      }
    };
    const loops = [loop("/mutate", gatedPodReview), loop("/validate-cocoonset", cocoonSetReview)];
    return {
      latencies,
      failures,
      async stop() {
        stopping = true;
        await Promise.all(loops);
      },
    };
  }

  async function applyFault(fault: Fault): Promise<void> {
    if (fault.failure === "stopped") {
      await apiserver.stop();
    } else if (fault.failure === "blackhole") {
      // The stopped apiserver's port now accepts TCP and never says a word (no TLS handshake).
      blackhole = Bun.listen({
        hostname: "127.0.0.1",
        port: apiserver.port,
        socket: {
          open: (socket) => {
            held.push(socket);
          },
          data() {},
        },
      });
    } else {
      apiserver.failAlways(
        typeof fault.failure === "function" ? fault.failure(decoy.url) : fault.failure,
      );
    }
  }

  test("scale-downs, hibernation CREATEs and pods bound by name fail closed in time; scale-ups, the pod gate and CocoonSet rules are unaffected", async () => {
    // Baseline: a healthy apiserver.
    const baseline = backgroundTraffic();
    const healthyDown = await decide("/validate", scaleReview(3, 1));
    const healthyHibernation = await decide("/validate-cocoonhibernation", hibernationReview());
    await Bun.sleep(3000); // deliberate: a 3 s window of healthy background latencies
    await baseline.stop();
    expect(healthyDown.allowed).toBeFalse();
    expect(healthyDown.message).toContain("scaling down");
    expect(healthyHibernation.allowed).toBeTrue();

    const rows: Record<string, string | number | boolean> = {
      APISERVER_TIMEOUT: `${APISERVER_TIMEOUT_MS} ms (bound ${BOUND_MS} ms)`,
      "healthy: scale-down GET+deny ms": round(healthyDown.latencyMs),
      "healthy: pod gate + CocoonSet p50 / p99 ms": `${round(percentile(baseline.latencies, 50))} / ${round(percentile(baseline.latencies, 99))} (n=${baseline.latencies.length})`,
    };
    const problems: string[] = [];

    for (const fault of FAULTS) {
      await applyFault(fault);
      const traffic = backgroundTraffic();
      const [downs, hibernations, ups, boundByName] = await Promise.all([
        Promise.all(
          Array.from({ length: PER_FAULT }, () => decide("/validate", scaleReview(3, 1))),
        ),
        Promise.all(
          Array.from({ length: PER_FAULT }, (_, i) =>
            decide("/validate-cocoonhibernation", hibernationReview(`demo-${i}`)),
          ),
        ),
        Promise.all(
          Array.from({ length: PER_FAULT }, () => decide("/validate", scaleReview(1, 3))),
        ),
        Promise.all(Array.from({ length: PER_FAULT }, () => decide("/mutate", podOnNodeReview()))),
      ]);
      await Bun.sleep(500); // deliberate: background traffic goes on under the fault a while longer
      await traffic.stop();

      const closed = [...downs, ...hibernations, ...boundByName];
      for (const answer of boundByName) {
        if (answer.allowed !== false || !answer.message.includes("cannot verify node"))
          problems.push(
            `${fault.name}: pod bound by name not denied fail-closed: ${answer.message}`,
          );
      }
      for (const answer of downs) {
        if (answer.allowed !== false || !answer.message.includes("cannot verify parent workload"))
          problems.push(`${fault.name}: scale-down not denied fail-closed: ${answer.message}`);
      }
      for (const answer of hibernations) {
        if (answer.allowed !== false || !answer.message.includes("cannot verify"))
          problems.push(`${fault.name}: hibernation not denied fail-closed: ${answer.message}`);
      }
      for (const answer of closed) {
        if (answer.latencyMs > BOUND_MS)
          problems.push(`${fault.name}: denial took ${round(answer.latencyMs)} ms`);
      }
      for (const answer of ups) {
        if (answer.allowed !== true) problems.push(`${fault.name}: scale-up not allowed`);
      }
      problems.push(...traffic.failures.map((failure) => `${fault.name}: background ${failure}`));
      const slowest = Math.max(...closed.map((answer) => answer.latencyMs));
      rows[`${fault.name}: fail-closed denials max ms`] = round(slowest);
      rows[`${fault.name}: scale-up allowed, max ms`] = round(
        Math.max(...ups.map((answer) => answer.latencyMs)),
      );
      rows[`${fault.name}: pod gate + CocoonSet p50 / p99 ms`] =
        `${round(percentile(traffic.latencies, 50))} / ${round(percentile(traffic.latencies, 99))} (n=${traffic.latencies.length})`;

      if (typeof fault.failure !== "string") {
        apiserver.clearFailures();
        const recovered = await eventually(
          () => decide("/validate", scaleReview(3, 1)),
          (answer) => answer.message.includes("scaling down"),
        );
        if (!recovered.message.includes("scaling down"))
          problems.push(`${fault.name}: no recovery: ${recovered.message}`);
      }
    }
    const metrics = await webhook.metrics();
    const { sampleValue } = await import("../e2e/harness");
    rows["apiserver calls counted as timeout"] =
      sampleValue(metrics, "cocoon_webhook_apiserver_requests_total", {
        verb: "get",
        resource: "deployments",
        outcome: "timeout",
      }) +
      sampleValue(metrics, "cocoon_webhook_apiserver_requests_total", {
        verb: "list",
        resource: "cocoonhibernations",
        outcome: "timeout",
      }) +
      sampleValue(metrics, "cocoon_webhook_apiserver_requests_total", {
        verb: "get",
        resource: "nodes",
        outcome: "timeout",
      });
    rows["redirect targets reached"] = decoy.hits();
    if (decoy.hits() > 0) problems.push(`a redirect was followed ${decoy.hits()} times`);
    rows.problems = problems.length;
    recordFigures("apiserver faults", rows);
    if (problems.length) console.log(problems.join("\n"));
    expect(problems).toEqual([]);
    expect(webhook.process.exitCode).toBeNull();
  }, 120_000);
  test("a CocoonSet with 150 000 and 1 000 000 empty toolboxes: bounded answer, log line and stall; 2 400 000 refused", async () => {
    const rows: Record<string, string | number | boolean> = {};
    const problems: string[] = [];
    const withToolboxes = (count: number) => {
      const body = cocoonSetReview();
      body.request.object = {
        ...cocoonSetObject(),
        spec: {
          agent: { image: "cocoonstack/agent:1.0" },
          toolboxes: Array.from({ length: count }, () => ({})),
        },
      };
      return body;
    };
    for (const count of [150_000, 1_000_000]) {
      const body = withToolboxes(count);
      const logLinesBefore = webhook.logs().length;
      let peakRssKib = rssKib(webhook.process.pid);
      const sampler = setInterval(() => {
        peakRssKib = Math.max(peakRssKib, rssKib(webhook.process.pid));
      }, 10);
      const traffic = backgroundTraffic();
      await waitUntil(() => traffic.latencies.length >= 5); // the background traffic flows
      const t0 = performance.now();
      const response = await webhook.post("/validate-cocoonset?timeout=5s", body);
      const text = await response.text();
      const latencyMs = performance.now() - t0;
      // The denial's log line is written; the background traffic goes on until then.
      await webhook.logLine(body.request.uid);
      await traffic.stop();
      clearInterval(sampler);
      const message: string = JSON.parse(text).response?.status?.message ?? "";
      const longestLogLine = Math.max(
        0,
        ...webhook
          .logs()
          .slice(logLinesBefore)
          .map((line) => line.length),
      );
      const label = `${count.toLocaleString("en")} toolboxes`;
      rows[`${label}: request bytes`] = JSON.stringify(body).length;
      rows[`${label}: answered ms`] = round(latencyMs);
      rows[`${label}: response bytes`] = text.length;
      rows[`${label}: longest log line bytes`] = longestLogLine;
      rows[`${label}: peak RSS MiB`] = round(peakRssKib / 1024);
      rows[`${label}: other reviews max ms`] = round(Math.max(0, ...traffic.latencies));
      if (response.status !== 200 || !message.includes(`… and ${2 * count - 20} more`))
        problems.push(
          `${label}: not a bounded denial: ${response.status} ${message.slice(0, 200)}`,
        );
      if (text.length > 8192) problems.push(`${label}: response of ${text.length} bytes`);
      if (longestLogLine > 8192) problems.push(`${label}: log line of ${longestLogLine} bytes`);
      problems.push(...traffic.failures.map((failure) => `${label}: background ${failure}`));
    }
    // 2 400 000 empty toolboxes come to about 7.2 MB, past the default MAX_REQUEST_BYTES.
    const refused = await webhook.post("/validate-cocoonset?timeout=5s", withToolboxes(2_400_000));
    rows["2,400,000 toolboxes: answer"] = refused.status;
    if (refused.status !== 413) problems.push(`2,400,000 toolboxes: ${refused.status}, not 413`);
    await refused.arrayBuffer();
    rows.problems = problems.length;
    recordFigures("huge CocoonSet", rows);
    if (problems.length) console.log(problems.join("\n"));
    expect(problems).toEqual([]);
    expect(webhook.process.exitCode).toBeNull();
  }, 120_000);
});
