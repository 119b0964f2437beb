import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { STATUS_CODES } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify as toYaml } from "yaml";
import { COCOON_GROUP, COCOON_VERSION, COCOONHIBERNATION_PLURAL } from "../../src/cocoon/keys";
import { createTestCa, type TestCa } from "./certs";

/**
 * A real HTTPS Kubernetes apiserver stand-in for tests: its own private CA,
 * bearer-token auth, the endpoints cocoon-webhook reads, and failures on
 * demand.
 *
 * @example
 * const apiserver = await startFakeApiserver();
 * apiserver.setWorkload("deployments", "default", "web", { spec: { replicas: 3 } });
 * apiserver.failNext({ kind: "status", status: 500 });
 * // KUBECONFIG=apiserver.kubeconfigPath for the binary, or
 * const { api } = createKubeApi({ timeoutMs: 3000, kubeconfigPath: apiserver.kubeconfigPath });
 * await apiserver.stop();
 */

/** How a request can be made to fail. Failures apply before the token is checked. */
export type FakeFailure =
  /** Answer with this status and a Kubernetes Status body (403, 404, 429, 500, …). */
  | { readonly kind: "status"; readonly status: number; readonly message?: string }
  /** Wait `delayMs`, then answer normally. */
  | { readonly kind: "slow"; readonly delayMs: number }
  /** Send the status line and part of the body now, the rest after `delayMs`. */
  | { readonly kind: "stall-body"; readonly delayMs: number }
  /**
   * Close the connection without answering. Bun's fetch silently retries a GET
   * once when a pooled keep-alive connection dies this way, so a client sees
   * the error only when the retry fails too (use `times: 2` or failAlways).
   */
  | { readonly kind: "reset" };

export interface RecordedRequest {
  readonly method: string;
  /** Path and query, as sent (still URL-encoded). */
  readonly path: string;
  readonly authorization: string | undefined;
  readonly accept: string | undefined;
}

export interface FakeApiserverOptions {
  /** The bearer token accepted at start; default a random one. */
  readonly token?: string;
  /** The kubeconfig user reads its token from a file (`tokenFile`) instead of an inline `token`. */
  readonly tokenFile?: boolean;
  /**
   * The TLS handshake requires a client certificate signed by the fake's CA;
   * the kubeconfig user carries one (client-certificate-data) besides the token.
   */
  readonly clientCertificate?: boolean;
}

export interface KubeconfigOverrides {
  /** PEM of the CA the client should trust; default the fake's own CA. */
  readonly caPem?: string;
  /** Inline token; default the current token (or the token file in tokenFile mode). */
  readonly token?: string;
  /** Include the client certificate; default as in FakeApiserverOptions. */
  readonly clientCertificate?: boolean;
  /** Replaces the generated `user:` entry entirely, e.g. with an exec plugin. */
  readonly user?: Record<string, unknown>;
}

export interface ServiceAccountRoot {
  /** Pass as `inClusterRoot`; holds var/run/secrets/kubernetes.io/serviceaccount/{token,ca.crt,namespace}. */
  readonly root: string;
  readonly tokenPath: string;
  /** Values for KUBERNETES_SERVICE_HOST / KUBERNETES_SERVICE_PORT. */
  readonly host: string;
  readonly port: string;
}

export interface FakeApiserver {
  /** https://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  /** The private CA that signed the serving certificate. */
  readonly ca: TestCa;
  /** A kubeconfig with certificate-authority-data, this server and a bearer-token user. */
  readonly kubeconfigPath: string;
  /** The kubeconfig user's token file (tokenFile mode only). */
  readonly tokenFilePath: string | undefined;
  /** The token currently accepted. */
  readonly token: string;
  /** Every request received, in order, including refused and failed ones. */
  readonly requests: RecordedRequest[];
  setWorkload(
    resource: "deployments" | "statefulsets",
    namespace: string,
    name: string,
    object: unknown,
  ): void;
  removeWorkload(resource: "deployments" | "statefulsets", namespace: string, name: string): void;
  setHibernations(namespace: string, items: readonly unknown[]): void;
  /** Served at /api/v1/nodes/NAME; `undefined` removes it (404). */
  setNode(name: string, object: unknown): void;
  /** Served at /api/v1/namespaces/NS/pods/NAME; `undefined` removes it (404). */
  setPod(namespace: string, name: string, object: unknown): void;
  /** The next `times` requests fail this way (queued after earlier failNext calls). */
  failNext(failure: FakeFailure, times?: number): void;
  /** Every request fails this way once the failNext queue is empty, until clearFailures(). */
  failAlways(failure: FakeFailure): void;
  clearFailures(): void;
  /** Accept `token` from now on and write it to every token file this server handed out. */
  rotateToken(token?: string): string;
  /** Another kubeconfig for this server, e.g. trusting a different CA. */
  writeKubeconfig(overrides?: KubeconfigOverrides): string;
  /** A service-account folder tree for in-cluster loading, pointing at this server. */
  writeServiceAccountRoot(): ServiceAccountRoot;
  stop(): Promise<void>;
}

const SERVICE_ACCOUNT_DIR = "var/run/secrets/kubernetes.io/serviceaccount";

export async function startFakeApiserver(
  options: FakeApiserverOptions = {},
): Promise<FakeApiserver> {
  const ca = createTestCa("fake-apiserver-ca");
  const leaf = ca.issue("apiserver");
  const dir = mkdtempSync(join(tmpdir(), "fake-apiserver-"));
  const state = new ApiserverState(options.token ?? randomToken());
  const tokenFiles: string[] = [];

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 60,
    tls: {
      cert: leaf.cert,
      key: leaf.key,
      ...(options.clientCertificate ? { ca: ca.cert, requestCert: true } : {}),
    },
    fetch: (request) => state.handle(request),
  });
  const url = `https://127.0.0.1:${server.port}`;

  const writeTokenFile = (path: string): string => {
    writeFileSync(path, state.token);
    tokenFiles.push(path);
    return path;
  };
  const tokenFilePath = options.tokenFile ? writeTokenFile(join(dir, "token")) : undefined;
  let kubeconfigCount = 0;
  const clientLeaf = options.clientCertificate ? ca.issue("client") : undefined;
  const writeKubeconfig = (overrides: KubeconfigOverrides = {}): string => {
    const path = join(dir, `kubeconfig-${++kubeconfigCount}.yaml`);
    const credential =
      overrides.token === undefined && tokenFilePath
        ? { tokenFile: tokenFilePath }
        : { token: overrides.token ?? state.token };
    const withCertificate = overrides.clientCertificate ?? options.clientCertificate ?? false;
    const certificate =
      withCertificate && clientLeaf
        ? {
            "client-certificate-data": base64(clientLeaf.cert),
            "client-key-data": base64(clientLeaf.key),
          }
        : {};
    const user = overrides.user ?? { ...credential, ...certificate };
    writeFileSync(path, kubeconfigYaml(url, overrides.caPem ?? ca.cert, user));
    return path;
  };

  return {
    url,
    port: server.port ?? 0,
    ca,
    kubeconfigPath: writeKubeconfig(),
    tokenFilePath,
    get token() {
      return state.token;
    },
    requests: state.requests,
    setWorkload: (resource, namespace, name, object) =>
      state.workloads.set(workloadKey(resource, namespace, name), object),
    removeWorkload: (resource, namespace, name) =>
      state.workloads.delete(workloadKey(resource, namespace, name)),
    setHibernations: (namespace, items) => state.hibernations.set(namespace, [...items]),
    setNode: (name, object) =>
      object === undefined ? state.nodes.delete(name) : state.nodes.set(name, object),
    setPod: (namespace, name, object) =>
      object === undefined
        ? state.pods.delete(`${namespace}/${name}`)
        : state.pods.set(`${namespace}/${name}`, object),
    failNext: (failure, times = 1) => {
      for (let i = 0; i < times; i++) state.queuedFailures.push(failure);
    },
    failAlways: (failure) => {
      state.standingFailure = failure;
    },
    clearFailures: () => {
      state.queuedFailures.length = 0;
      state.standingFailure = undefined;
    },
    rotateToken(token = randomToken()) {
      state.token = token;
      for (const path of tokenFiles) writeFileSync(path, token);
      return token;
    },
    writeKubeconfig,
    writeServiceAccountRoot() {
      const root = mkdtempSync(join(dir, "sa-root-"));
      const accountDir = join(root, SERVICE_ACCOUNT_DIR);
      mkdirSync(accountDir, { recursive: true });
      writeFileSync(join(accountDir, "ca.crt"), ca.cert);
      writeFileSync(join(accountDir, "namespace"), "cocoon-system");
      const tokenPath = writeTokenFile(join(accountDir, "token"));
      return { root, tokenPath, host: "127.0.0.1", port: String(server.port) };
    },
    async stop() {
      await server.stop(true);
      rmSync(dir, { recursive: true, force: true });
      rmSync(ca.dir, { recursive: true, force: true });
    },
  };
}

function workloadKey(resource: string, namespace: string, name: string): string {
  return `${resource}/${namespace}/${name}`;
}

function randomToken(): string {
  return `fake-token-${crypto.randomUUID()}`;
}

class ApiserverState {
  readonly requests: RecordedRequest[] = [];
  readonly workloads = new Map<string, unknown>();
  readonly hibernations = new Map<string, unknown[]>();
  readonly nodes = new Map<string, unknown>();
  readonly pods = new Map<string, unknown>();
  readonly queuedFailures: FakeFailure[] = [];
  standingFailure: FakeFailure | undefined;

  constructor(public token: string) {}

  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    this.requests.push({
      method: request.method,
      path: `${url.pathname}${url.search}`,
      authorization: request.headers.get("authorization") ?? undefined,
      accept: request.headers.get("accept") ?? undefined,
    });
    const failure = this.queuedFailures.shift() ?? this.standingFailure;
    switch (failure?.kind) {
      case "status":
        return statusResponse(failure.status, failure.message ?? `fake apiserver failure`);
      case "reset":
        // Erroring the body before anything is written makes Bun drop the connection.
        return new Response(new ReadableStream({ start: (controller) => controller.error() }));
      case "slow":
        await Bun.sleep(failure.delayMs);
        return this.answer(request, url);
      case "stall-body":
        return stallBody(this.answer(request, url), failure.delayMs);
      default:
        return this.answer(request, url);
    }
  }

  private answer(request: Request, url: URL): Response {
    if (request.headers.get("authorization") !== `Bearer ${this.token}`) {
      return statusResponse(401, "Unauthorized");
    }
    if (request.method !== "GET")
      return statusResponse(405, `${request.method} is not served here`);
    const segments = url.pathname.split("/").slice(1).map(decodeURIComponent);
    if (segments[0] === "api") return this.answerCore(segments);
    const [apis, group, version, namespaces, namespace, resource, name, ...rest] = segments;
    if (apis !== "apis" || namespaces !== "namespaces" || !namespace || rest.length > 0) {
      return notFound();
    }
    if (group === "apps" && version === "v1" && name !== undefined) {
      if (resource !== "deployments" && resource !== "statefulsets") return notFound();
      const workload = this.workloads.get(workloadKey(resource, namespace, name));
      return workload === undefined
        ? statusResponse(404, `${resource}.apps "${name}" not found`)
        : Response.json(workload);
    }
    if (
      group === COCOON_GROUP &&
      version === COCOON_VERSION &&
      resource === COCOONHIBERNATION_PLURAL &&
      name === undefined
    ) {
      return Response.json({
        apiVersion: `${COCOON_GROUP}/${COCOON_VERSION}`,
        kind: "CocoonHibernationList",
        metadata: { resourceVersion: "1" },
        items: this.hibernations.get(namespace) ?? [],
      });
    }
    return notFound();
  }

  private answerCore(segments: readonly string[]): Response {
    return answerCoreGet(segments, this.nodes, this.pods);
  }
}

/** The core group: GET of a node or of a namespaced pod. */
function answerCoreGet(
  segments: readonly string[],
  nodes: ReadonlyMap<string, unknown>,
  pods: ReadonlyMap<string, unknown>,
): Response {
  const [, version, ...rest] = segments;
  if (version !== "v1") return notFound();
  if (rest.length === 2 && rest[0] === "nodes" && rest[1]) {
    const node = nodes.get(rest[1]);
    return node === undefined
      ? statusResponse(404, `nodes "${rest[1]}" not found`)
      : Response.json(node);
  }
  if (rest.length === 4 && rest[0] === "namespaces" && rest[2] === "pods" && rest[1] && rest[3]) {
    const pod = pods.get(`${rest[1]}/${rest[3]}`);
    return pod === undefined
      ? statusResponse(404, `pods "${rest[3]}" not found`)
      : Response.json(pod);
  }
  return notFound();
}

const STATUS_REASONS: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  409: "AlreadyExists",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/** A `kind: Status` body as the apiserver writes for every failure. */
function statusResponse(code: number, message: string): Response {
  const body = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason: STATUS_REASONS[code] ?? STATUS_CODES[code] ?? "Unknown",
    code,
  };
  const headers: Record<string, string> = code === 429 ? { "Retry-After": "1" } : {};
  return Response.json(body, { status: code, headers });
}

function notFound(): Response {
  return statusResponse(404, "the server could not find the requested resource");
}

function stallBody(response: Response, delayMs: number): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const text = await response.text();
      const half = Math.floor(text.length / 2);
      controller.enqueue(encoder.encode(text.slice(0, half)));
      await Bun.sleep(delayMs);
      controller.enqueue(encoder.encode(text.slice(half)));
      controller.close();
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

function base64(text: string): string {
  return Buffer.from(text).toString("base64");
}

function kubeconfigYaml(server: string, caPem: string, user: Record<string, unknown>): string {
  return toYaml({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "fake",
        cluster: { server, "certificate-authority-data": base64(caPem) },
      },
    ],
    users: [{ name: "fake-user", user }],
    contexts: [
      { name: "fake", context: { cluster: "fake", user: "fake-user", namespace: "default" } },
    ],
    "current-context": "fake",
  });
}
