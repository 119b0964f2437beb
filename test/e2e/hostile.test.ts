import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import tls from "node:tls";
import fc from "fast-check";
import { OPERATOR_USERNAME } from "../../src/cocoon/identities";
import { COCOON_TOLERATION_KEY } from "../../src/cocoon/markers";
import { ENDPOINT_KEYS, ENDPOINTS } from "../../src/endpoints";
import { anyJson, corruptedAnywhere, type Json } from "../fuzz/arbitraries";
import {
  admissionReview,
  appsResource,
  COCOONSET_KIND,
  HIBERNATION_KIND,
  SCALE_KIND,
} from "../support/admission-review";
import { eventually, waitUntil } from "../support/eventually";
import { sampleValue, startWebhook, type WebhookProcess } from "./harness";

/**
 * Hostile input over real HTTPS against the compiled binary: every answer is
 * a well-formed review (200, matching uid) or a 4xx, never a 5xx, and the
 * process survives with /healthz ok. No KUBECONFIG: the apiserver-backed
 * checks fail closed at once, which keeps this file fast.
 */

const PATHS = ENDPOINT_KEYS.map((endpoint) => ENDPOINTS[endpoint].path);
const MAX_REQUEST_BYTES = 7 * 1024 * 1024;

let webhook: WebhookProcess;
const exchanges = { total: 0, fiveHundreds: 0 };

beforeAll(async () => {
  webhook = await startWebhook({ env: { WEBHOOK_LOG_LEVEL: "info" } });
});
afterAll(async () => {
  await webhook.stop("SIGKILL");
});

interface Answer {
  readonly status: number;
  readonly uid: unknown;
  readonly allowed: unknown;
  readonly ms: number;
}

async function post(path: string, body: string | Uint8Array): Promise<Answer> {
  const t0 = performance.now();
  const response = await fetch(`${webhook.admissionUrl}${path}?timeout=5s`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    tls: { ca: webhook.ca.cert },
  });
  const text = await response.text();
  exchanges.total++;
  if (response.status >= 500) exchanges.fiveHundreds++;
  let parsed: { response?: { uid?: unknown; allowed?: unknown } } = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    // a 4xx from the transport may carry no JSON; judged by status below
  }
  return {
    status: response.status,
    uid: parsed.response?.uid,
    allowed: parsed.response?.allowed,
    ms: performance.now() - t0,
  };
}

/** 200 with the uid echoed and a boolean verdict, or a 4xx; never anything else. */
function expectWellFormed(answer: Answer, uid: unknown): void {
  if (answer.status === 200) {
    expect(answer.uid).toBe(uid);
    expect(typeof answer.allowed).toBe("boolean");
  } else {
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
  }
}

interface RawResult {
  readonly status: number | undefined;
  readonly closed: boolean;
  readonly ms: number;
  /** Everything read from the connection. */
  readonly text: string;
}

/**
 * Writes raw bytes on a fresh TLS connection and waits for a status line or
 * the close, at most `waitMs`. `halfClose` sends FIN after writing;
 * `untilClosed` reads on past the status line until the server closes.
 */
function rawExchange(
  chunks: readonly (string | Uint8Array)[],
  options: {
    halfClose?: boolean;
    waitMs?: number;
    untilClosed?: boolean;
    /** The suite's webhook unless given. */
    to?: WebhookProcess;
  } = {},
): Promise<RawResult> {
  const target = options.to ?? webhook;
  const { hostname, port } = new URL(target.admissionUrl);
  const t0 = performance.now();
  return new Promise((resolve) => {
    let text = "";
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({
        status: match ? Number(match[1]) : undefined,
        closed,
        ms: performance.now() - t0,
        text,
      });
      socket.destroy();
    };
    const socket = tls.connect(
      { host: hostname, port: Number(port), ca: target.ca.cert, servername: hostname },
      () => {
        for (const chunk of chunks) socket.write(chunk);
        if (options.halfClose) socket.end();
      },
    );
    const timer = setTimeout(() => finish(false), options.waitMs ?? 5000);
    socket.on("data", (data) => {
      text += data.toString("latin1");
      if (!options.untilClosed && /^HTTP\/1\.1 \d{3}/.test(text)) finish(false);
    });
    socket.on("error", () => finish(true));
    socket.on("close", () => finish(true));
  });
}

const head = (path: string, headers: Record<string, string | number>) =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")}\r\n`;

const gatedPod = {
  metadata: {
    name: "p",
    ownerReferences: [
      { apiVersion: "cocoonset.cocoonstack.io/v1", kind: "CocoonSet", name: "s", uid: "1" },
    ],
  },
  spec: {
    containers: [{ name: "c", image: "i" }],
    tolerations: [{ key: COCOON_TOLERATION_KEY, operator: "Exists" }],
  },
};

/** A realistic review per handler, to corrupt one path at a time. */
const REALISTIC: Record<string, Json> = {
  "/mutate": admissionReview({ object: gatedPod, username: "mallory" }) as unknown as Json,
  "/validate": admissionReview({
    operation: "UPDATE",
    kind: SCALE_KIND,
    resource: appsResource("deployments"),
    subResource: "scale",
    object: { spec: { replicas: 1 } },
    oldObject: { spec: { replicas: 3 } },
  }) as unknown as Json,
  "/validate-cocoonset": admissionReview({
    kind: COCOONSET_KIND,
    object: {
      metadata: { name: "demo" },
      spec: {
        agent: { image: "cocoonstack/agent:1.0", replicas: 2, backend: "firecracker", mode: "run" },
        toolboxes: [{ name: "b", image: "cocoonstack/b:1", backend: "firecracker", mode: "run" }],
        snapshotPolicy: "never",
      },
    },
  }) as unknown as Json,
  "/validate-cocoonhibernation": admissionReview({
    kind: HIBERNATION_KIND,
    object: { metadata: { name: "p" }, spec: { desire: "Wake", podRef: { name: "p" } } },
  }) as unknown as Json,
};

const uidOf = (body: Json): unknown => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const request = body.request;
  if (typeof request !== "object" || request === null || Array.isArray(request)) return undefined;
  return request.uid;
};

describe("hostile input over HTTPS", () => {
  test("random JSON bodies on every path: 4xx, never 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATHS), anyJson, async (path, body) => {
        const answer = await post(path, JSON.stringify(body));
        expect(answer.status).toBeGreaterThanOrEqual(400);
        expect(answer.status).toBeLessThan(500);
      }),
      { numRuns: 60 },
    );
  });

  test("well-formed envelopes with random embedded objects: a review with the uid echoed", async () => {
    const embedded = fc.record({
      path: fc.constantFrom(...PATHS),
      operation: fc.constantFrom("CREATE", "UPDATE", "DELETE", "CONNECT"),
      subResource: fc.constantFrom(undefined, "scale", "status"),
      object: anyJson,
      oldObject: anyJson,
      apiVersion: fc.constantFrom("admission.k8s.io/v1", "admission.k8s.io/v1beta1"),
    });
    await fc.assert(
      fc.asyncProperty(embedded, async (each) => {
        const body = admissionReview({ ...each, object: each.object, oldObject: each.oldObject });
        const answer = await post(each.path, JSON.stringify(body));
        expect(answer.status).toBe(200);
        expect(answer.uid).toBe(body.request.uid);
      }),
      { numRuns: 150 },
    );
  });

  test("a wrong type at any path of a realistic review, per handler: a review or a 4xx", async () => {
    for (const path of PATHS) {
      const realistic = REALISTIC[path] ?? null;
      await fc.assert(
        fc.asyncProperty(corruptedAnywhere(realistic), async ({ corrupted }) => {
          expectWellFormed(await post(path, JSON.stringify(corrupted)), uidOf(corrupted));
        }),
        { numRuns: 60 },
      );
    }
  });

  test("invalid UTF-8 in bodies and inside strings: a review or a 4xx", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PATHS),
        fc.uint8Array({ minLength: 1, maxLength: 16 }),
        fc.boolean(),
        async (path, garbage, insideString) => {
          const bytes = garbage.map((byte) => byte | 0x80); // never valid ASCII
          const text = JSON.stringify(REALISTIC[path]);
          const at = insideString ? text.indexOf('"p"') + 2 : text.length - 1;
          const encoder = new TextEncoder();
          const body = new Uint8Array([
            ...encoder.encode(text.slice(0, at)),
            ...bytes,
            ...encoder.encode(text.slice(at)),
          ]);
          const answer = await post(path, body);
          expect(answer.status === 200 || (answer.status >= 400 && answer.status < 500)).toBeTrue();
        },
      ),
      { numRuns: 60 },
    );
  });

  test("deep nesting in the embedded object (10 000 levels): a review or a 4xx", async () => {
    for (const depth of [1_000, 10_000]) {
      for (const [open, close] of [
        ["[", "]"],
        ['{"a":', "}"],
      ] as const) {
        const nested = `${open.repeat(depth)}1${close.repeat(depth)}`;
        const body = JSON.stringify(admissionReview({ object: gatedPod })).replace(
          '"containers":[',
          `"x":${nested},"containers":[`,
        );
        for (const path of PATHS) {
          expectWellFormed(await post(path, body), JSON.parse(body).request.uid);
        }
      }
    }
  });

  test("huge arrays (500 000 tolerations, ~1.5 MB, the etcd object limit) are judged correctly, inside the 5 s webhook timeout", async () => {
    const filler = Array.from({ length: 500_000 }, () => ({}));
    const body = admissionReview({
      username: "mallory",
      object: {
        ...gatedPod,
        spec: { ...gatedPod.spec, tolerations: [...filler, ...gatedPod.spec.tolerations] },
      },
    });
    const text = JSON.stringify(body);
    expect(text.length).toBeLessThan(MAX_REQUEST_BYTES);
    const small = JSON.stringify(admissionReview({ object: { spec: {} } }));
    let hugeAnswered = false;
    const hugeAnswer = post("/mutate", text).finally(() => {
      hugeAnswered = true;
    });
    // Small reviews one after another while the huge one is in flight (at least five).
    const inFlight = () => webhook.metric("cocoon_webhook_http_requests_in_flight");
    await eventually(inFlight, (count) => count > 0 || hugeAnswered);
    const others: Answer[] = [];
    while (others.length < 5 || !hugeAnswered) others.push(await post("/mutate", small));
    const huge = await hugeAnswer;
    expect(huge.status).toBe(200);
    expect(huge.ms).toBeLessThan(5000);
    expect(huge.allowed).toBeFalse(); // the marker sits after half a million empty tolerations
    for (const other of others) expect(other.status).toBe(200);
    console.log(
      `hostile: huge review ${huge.ms.toFixed(0)} ms; concurrent small reviews max ${Math.max(...others.map((o) => o.ms)).toFixed(0)} ms`,
    );
  }, 20_000);

  test("bodies over MAX_REQUEST_BYTES: 413, early, without reading the rest", async () => {
    const declared = await rawExchange(
      [
        head("/mutate", {
          "Content-Type": "application/json",
          "Content-Length": 100 * 1024 * 1024,
        }),
        "{",
      ],
      { waitMs: 5000 },
    );
    expect(declared.status).toBe(413);

    const chunkSize = 1024 * 1024;
    const chunk = `${chunkSize.toString(16)}\r\n${"a".repeat(chunkSize)}\r\n`;
    const chunked = await rawExchange(
      [
        head("/mutate", { "Content-Type": "application/json", "Transfer-Encoding": "chunked" }),
        ...Array.from({ length: 8 }, () => chunk),
      ],
      { waitMs: 5000 },
    );
    expect(chunked.status === 413 || chunked.closed).toBeTrue();
    console.log(
      `hostile: 100 MiB Content-Length answered ${declared.status} after ${declared.ms.toFixed(0)} ms; 8 MiB chunked: ${chunked.status ?? "closed"} after ${chunked.ms.toFixed(0)} ms`,
    );
    const big = await post("/mutate", "x".repeat(MAX_REQUEST_BYTES + 1));
    expect(big.status).toBe(413);
  });

  test("a body declared far over MAX_REQUEST_BYTES gets the app's JSON 413, counted and logged like any other", async () => {
    // A webhook of its own: the suite's has logged more rejections than one window's lines by now.
    const fresh = await startWebhook({ env: { WEBHOOK_LOG_LEVEL: "info" } });
    try {
      const declared = await rawExchange(
        [
          head("/validate", {
            "Content-Type": "application/json",
            "Content-Length": 20 * MAX_REQUEST_BYTES,
          }),
          "{",
        ],
        { waitMs: 5000, untilClosed: true, to: fresh },
      );
      expect(declared.status).toBe(413);
      const body = declared.text.slice(declared.text.indexOf("\r\n\r\n") + 4);
      expect(JSON.parse(body).error).toStartWith("request body is larger than MAX_REQUEST_BYTES");
      expect(
        await fresh.metric("cocoon_webhook_http_responses_total", {
          path: "/validate",
          code: "413",
        }),
      ).toBe(1);
      expect(await fresh.logLine('"method":"POST","path":"/validate","status":413')).toBeDefined();
    } finally {
      await fresh.stop();
    }
  });

  test("truncated bodies: the connection is dropped or answered 4xx, and nothing else is hurt", async () => {
    const body = JSON.stringify(admissionReview({ object: gatedPod }));
    const headers = {
      "Content-Type": "application/json",
      "Content-Length": Buffer.byteLength(body),
    };
    const halfThenFin = await rawExchange(
      [head("/mutate", headers), body.slice(0, body.length / 2)],
      {
        halfClose: true,
        waitMs: 3000,
      },
    );
    expect(halfThenFin.status === undefined || halfThenFin.status < 500).toBeTrue();
    const truncatedJson = body.slice(0, body.length - 7);
    const shortJson = await rawExchange(
      [
        head("/mutate", {
          "Content-Type": "application/json",
          "Content-Length": Buffer.byteLength(truncatedJson),
        }),
        truncatedJson,
      ],
      { waitMs: 3000 },
    );
    expect(shortJson.status).toBe(400);
    const headersOnly = await rawExchange(["POST /mutate HTTP/1.1\r\nHost: localh"], {
      halfClose: true,
      waitMs: 3000,
    });
    expect(headersOnly.status === undefined || headersOnly.status < 500).toBeTrue();
  });

  test("200 trickling connections do not starve a normal request", async () => {
    const small = JSON.stringify(admissionReview({ object: { spec: {} } }));
    const measure = async (count: number) => {
      const latencies: number[] = [];
      for (let i = 0; i < count; i++) latencies.push((await post("/mutate", small)).ms);
      latencies.sort((a, b) => a - b);
      return {
        p50: latencies[Math.floor(count / 2)] ?? 0,
        p99: latencies[Math.ceil(count * 0.99) - 1] ?? 0,
      };
    };
    const baseline = await measure(100);

    const { hostname, port } = new URL(webhook.admissionUrl);
    const request = `${head("/mutate", { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(small) })}${small}`;
    const sockets: tls.TLSSocket[] = [];
    let position = 0;
    const opened = Array.from(
      { length: 200 },
      (_, i) =>
        new Promise<void>((resolve) => {
          const socket = tls.connect(
            { host: hostname, port: Number(port), ca: webhook.ca.cert, servername: hostname },
            () => resolve(),
          );
          socket.on("error", () => resolve());
          sockets.push(socket);
          // Half trickle headers, half send the headers and trickle the body.
          if (i % 2 === 1)
            socket.once("secureConnect", () =>
              socket.write(request.slice(0, request.indexOf(small))),
            );
        }),
    );
    await Promise.all(opened);
    const trickle = setInterval(() => {
      position++;
      for (const [i, socket] of sockets.entries()) {
        if (socket.destroyed) continue;
        const offset = i % 2 === 1 ? request.indexOf(small) : 0;
        socket.write(request.slice(offset + position, offset + position + 1));
      }
    }, 200);
    try {
      await waitUntil(() => position >= 2, 2000); // the trickle has reached every connection twice
      const during = await measure(100);
      const open = sockets.filter((socket) => !socket.destroyed).length;
      console.log(
        `hostile: normal request p50/p99 ${baseline.p50.toFixed(1)}/${baseline.p99.toFixed(1)} ms alone, ` +
          `${during.p50.toFixed(1)}/${during.p99.toFixed(1)} ms beside ${open} trickling connections`,
      );
      expect(open).toBe(200);
      expect(during.p99).toBeLessThan(Math.max(100, baseline.p99 * 5));
    } finally {
      clearInterval(trickle);
      for (const socket of sockets) socket.destroy();
    }
  }, 20_000);

  test("afterwards: alive, /healthz ok, no 5xx, no rule crashed", async () => {
    expect(webhook.process.exitCode).toBeNull();
    const healthz = await fetch(`${webhook.admissionUrl}/healthz`, {
      tls: { ca: webhook.ca.cert },
    });
    expect([healthz.status, await healthz.text()]).toEqual([200, "ok"]);
    expect((await fetch(`${webhook.opsUrl}/healthz`)).status).toBe(200);
    expect(exchanges.fiveHundreds).toBe(0);
    expect(exchanges.total).toBeGreaterThan(500);
    const metrics = await webhook.metrics();
    for (const handler of ENDPOINT_KEYS) {
      expect(
        sampleValue(metrics, "cocoon_webhook_admission_total", {
          handler,
          result: "error",
          reason: "internal",
        }),
      ).toBe(0);
    }
    expect(webhook.logs().filter((line) => line.includes("unhandled error"))).toEqual([]);
    // The operator is still let through: the server is healthy, not just alive.
    const operator = await post(
      "/mutate",
      JSON.stringify(admissionReview({ object: gatedPod, username: OPERATOR_USERNAME })),
    );
    expect(operator.allowed).toBeTrue();
  });
});
