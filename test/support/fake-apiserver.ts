import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { STATUS_CODES } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  COCOON_GROUP,
  COCOON_VERSION,
  COCOONHIBERNATION_KIND,
  COCOONHIBERNATION_PLURAL,
} from "../../src/cocoon/crd-resources";
import { createTestCa, type TestCa } from "./certs";
import { base64, kubeconfigYaml } from "./kubeconfig";

/**
 * A real HTTPS Kubernetes apiserver stand-in for tests: its own private CA,
 * bearer-token auth, the endpoints cocoon-webhook reads (LISTs paginated on
 * demand), and failures on demand, hostile answers included: redirects,
 * arbitrary bodies, oversized bodies.
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
  /**
   * Answer with this status and a Kubernetes Status body (403, 404, 429, 500, …);
   * it names no object, as a proxy's or an unserved path's 404 would not.
   */
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
  | { readonly kind: "reset" }
  /** Answer with a redirect to `location` (a path on this server or any URL); a client must not follow it. */
  | {
      readonly kind: "redirect";
      readonly status: 301 | 302 | 303 | 307 | 308;
      readonly location: string;
    }
  /**
   * Answer `status` (default 200) with `body`: JSON-encoded unless it is a
   * string; a function makes the body of each request (a list whose every
   * page carries a new continue token).
   */
  | { readonly kind: "answer"; readonly status?: number; readonly body: unknown }
  /**
   * Answer 200 with a JSON body of about `bytes` bytes, streamed in 64 KiB
   * chunks, with or without a Content-Length header; `sentBytes` tells how
   * much a client actually pulled.
   */
  | { readonly kind: "oversized"; readonly bytes: number; readonly declareLength?: boolean }
  /**
   * Answer 200 with `body` sent as it is under `Content-Encoding: encoding`,
   * whatever the client asked for (see compression-bombs.ts).
   */
  | { readonly kind: "encoded"; readonly encoding: string; readonly body: Uint8Array };

/** The collections audit LISTs, by plural: where they live and what their lists are called. */
const LISTED = {
  cocoonsets: { group: COCOON_GROUP, kind: "CocoonSet" },
  cocoonhibernations: { group: COCOON_GROUP, kind: COCOONHIBERNATION_KIND },
  pods: { group: "", kind: "Pod" },
  nodes: { group: "", kind: "Node" },
  deployments: { group: "apps", kind: "Deployment" },
  statefulsets: { group: "apps", kind: "StatefulSet" },
} as const;

export type ListedPlural = keyof typeof LISTED;

/**
 * A collection as a LIST serves it: the objects, or `count` objects made on
 * demand by `make` (a hundred thousand pods without holding them). Objects
 * carry their own metadata.namespace; a namespaced LIST filters by it.
 */
export type FakeCollection =
  | readonly unknown[]
  | { readonly count: number; readonly make: (index: number) => unknown };

export interface RecordedRequest {
  readonly method: string;
  /** Path and query, as sent (still URL-encoded). */
  readonly path: string;
  readonly authorization: string | undefined;
  readonly accept: string | undefined;
  readonly acceptEncoding: string | undefined;
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
  /** A CA file the kubeconfig names (`certificate-authority`) instead of inline CA data. */
  readonly caFile?: string;
  /** Another server URL, such as a proxy in front of this server. */
  readonly server?: string;
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
  /** Bytes of `oversized` bodies the clients have pulled so far. */
  readonly sentBytes: number;
  /**
   * TLS connections that have sent at least one request since the last
   * resetConnectionCount(): distinct client address:port pairs, as each
   * connection has its own source port.
   */
  readonly connectionsSeen: number;
  resetConnectionCount(): void;
  setWorkload(
    resource: "deployments" | "statefulsets",
    namespace: string,
    name: string,
    object: unknown,
  ): void;
  removeWorkload(resource: "deployments" | "statefulsets", namespace: string, name: string): void;
  /** Items are served as the apiserver stores them: apiVersion and kind filled in when absent. */
  setHibernations(namespace: string, items: readonly unknown[]): void;
  /**
   * LISTs answer at most `size` items per page (fewer when the client's
   * `limit` is lower), with a `metadata.continue` token for the rest, as the
   * apiserver does; default: everything on one page.
   */
  setListPageSize(size: number | undefined): void;
  /**
   * Served as LISTs of `plural`, in every namespace and in each one (items of
   * built-in kinds without apiVersion/kind, custom resources with them, as
   * the apiserver writes them), paged like the hibernations; `undefined`
   * removes it. A collection of cocoonhibernations wins over setHibernations.
   */
  setList(plural: ListedPlural, collection: FakeCollection | undefined): void;
  /** Served at /api/v1/nodes/NAME; `undefined` removes it (404). */
  setNode(name: string, object: unknown): void;
  /** Served at /api/v1/namespaces/NS/pods/NAME; `undefined` removes it (404). */
  setPod(namespace: string, name: string, object: unknown): void;
  /** The next `times` requests fail this way (queued after earlier failNext calls). */
  failNext(failure: FakeFailure, times?: number): void;
  /** Every request whose path (without the query) ends with `suffix` fails this way, until clearFailures(). */
  failPath(suffix: string, failure: FakeFailure): void;
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
    fetch: (request, server) => {
      const client = server.requestIP(request);
      if (client) state.clientEndpoints.add(`${client.address}:${client.port}`);
      return state.handle(request);
    },
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
    const trust: Record<string, string> = overrides.caFile
      ? { "certificate-authority": overrides.caFile }
      : { "certificate-authority-data": base64(overrides.caPem ?? ca.cert) };
    writeFileSync(path, kubeconfigYaml(overrides.server ?? url, trust, user));
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
    get sentBytes() {
      return state.sentBytes;
    },
    get connectionsSeen() {
      return state.clientEndpoints.size;
    },
    resetConnectionCount: () => state.clientEndpoints.clear(),
    setListPageSize: (size) => {
      state.listPageSize = size;
    },
    setWorkload: (resource, namespace, name, object) =>
      state.workloads.set(workloadKey(resource, namespace, name), object),
    removeWorkload: (resource, namespace, name) =>
      state.workloads.delete(workloadKey(resource, namespace, name)),
    setHibernations: (namespace, items) =>
      state.hibernations.set(namespace, items.map(asServedHibernation)),
    setList: (plural, collection) =>
      collection === undefined ? state.lists.delete(plural) : state.lists.set(plural, collection),
    setNode: (name, object) =>
      object === undefined ? state.nodes.delete(name) : state.nodes.set(name, object),
    setPod: (namespace, name, object) =>
      object === undefined
        ? state.pods.delete(`${namespace}/${name}`)
        : state.pods.set(`${namespace}/${name}`, object),
    failNext: (failure, times = 1) => {
      for (let i = 0; i < times; i++) state.queuedFailures.push(failure);
    },
    failPath: (suffix, failure) => {
      state.pathFailures.set(suffix, failure);
    },
    failAlways: (failure) => {
      state.standingFailure = failure;
    },
    clearFailures: () => {
      state.queuedFailures.length = 0;
      state.standingFailure = undefined;
      state.pathFailures.clear();
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
  readonly clientEndpoints = new Set<string>();
  readonly workloads = new Map<string, unknown>();
  readonly hibernations = new Map<string, unknown[]>();
  readonly nodes = new Map<string, unknown>();
  readonly pods = new Map<string, unknown>();
  readonly lists = new Map<ListedPlural, FakeCollection>();
  readonly queuedFailures: FakeFailure[] = [];
  standingFailure: FakeFailure | undefined;
  readonly pathFailures = new Map<string, FakeFailure>();
  listPageSize: number | undefined;
  sentBytes = 0;

  constructor(public token: string) {}

  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    this.requests.push({
      method: request.method,
      path: `${url.pathname}${url.search}`,
      authorization: request.headers.get("authorization") ?? undefined,
      accept: request.headers.get("accept") ?? undefined,
      acceptEncoding: request.headers.get("accept-encoding") ?? undefined,
    });
    const failure =
      this.queuedFailures.shift() ??
      [...this.pathFailures].find(([suffix]) => url.pathname.endsWith(suffix))?.[1] ??
      this.standingFailure;
    switch (failure?.kind) {
      case "status":
        return statusResponse(failure.status, failure.message ?? `fake apiserver failure`);
      case "reset":
        // Erroring the body before anything is written makes Bun drop the connection.
        return new Response(new ReadableStream({ start: (controller) => controller.error() }));
      case "slow":
        await Bun.sleep(failure.delayMs); // deliberate: the slow apiserver under test
        return this.answer(request, url);
      case "stall-body":
        return stallBody(this.answer(request, url), failure.delayMs);
      case "redirect":
        return new Response(null, {
          status: failure.status,
          headers: { Location: failure.location },
        });
      case "answer": {
        const body = typeof failure.body === "function" ? failure.body(url) : failure.body;
        return new Response(typeof body === "string" ? body : JSON.stringify(body), {
          status: failure.status ?? 200,
          headers: { "Content-Type": "application/json" },
        });
      }
      case "oversized":
        return this.oversized(failure.bytes, failure.declareLength ?? false);
      case "encoded":
        return new Response(failure.body, {
          status: 200,
          headers: { "Content-Type": "application/json", "Content-Encoding": failure.encoding },
        });
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
    const listed = this.listed(segments);
    if (listed) return this.listPage(listed.items, url.searchParams, listed.list);
    if (segments[0] === "api") return this.answerCore(segments);
    const [apis, group, version, namespaces, namespace, resource, name, ...rest] = segments;
    if (apis !== "apis" || namespaces !== "namespaces" || !namespace || rest.length > 0) {
      return notFound();
    }
    if (group === "apps" && version === "v1" && name !== undefined) {
      if (resource !== "deployments" && resource !== "statefulsets") return notFound();
      const workload = this.workloads.get(workloadKey(resource, namespace, name));
      return workload === undefined
        ? statusResponse(404, `${resource}.apps "${name}" not found`, {
            name,
            group: "apps",
            kind: resource,
          })
        : Response.json(asServed(workload, resource, namespace, name));
    }
    if (
      group === COCOON_GROUP &&
      version === COCOON_VERSION &&
      resource === COCOONHIBERNATION_PLURAL &&
      name === undefined
    ) {
      return this.listPage(this.hibernations.get(namespace) ?? [], url.searchParams, {
        apiVersion: `${COCOON_GROUP}/${COCOON_VERSION}`,
        kind: "CocoonHibernationList",
      });
    }
    return notFound();
  }

  /** A LIST of a collection set with setList, at /api/v1[/namespaces/NS]/PLURAL or /apis/GROUP/v1[/namespaces/NS]/PLURAL. */
  private listed(
    segments: readonly string[],
  ): { items: FakeCollection; list: { apiVersion: string; kind: string } } | undefined {
    const [root, ...rest] = segments;
    const group = root === "api" ? "" : root === "apis" ? rest.shift() : undefined;
    const [version, ...scoped] = rest;
    if (group === undefined || version !== "v1") return undefined;
    const namespace = scoped.length === 3 && scoped[0] === "namespaces" ? scoped[1] : undefined;
    const plural = scoped.length === 1 ? scoped[0] : namespace ? scoped[2] : undefined;
    if (plural === undefined || !Object.hasOwn(LISTED, plural)) return undefined;
    const { group: listedGroup, kind } = LISTED[plural as ListedPlural];
    const collection = this.lists.get(plural as ListedPlural);
    if (listedGroup !== group || collection === undefined) return undefined;
    const apiVersion = group ? `${group}/v1` : "v1";
    const all = Array.isArray(collection)
      ? collection
      : Array.from({ length: (collection as { count: number }).count }, (_, index) => index);
    const make = Array.isArray(collection)
      ? (item: unknown) => item
      : (index: unknown) =>
          (collection as { make: (index: number) => unknown }).make(index as number);
    const served = (item: unknown) => {
      const object = make(item);
      return group.includes(".") && isObject(object) ? { apiVersion, kind, ...object } : object;
    };
    const inNamespace = namespace
      ? all.filter((item) => {
          const object = make(item);
          return (
            isObject(object) && isObject(object.metadata) && object.metadata.namespace === namespace
          );
        })
      : all;
    return {
      items: { count: inNamespace.length, make: (index) => served(inNamespace[index]) },
      list: { apiVersion, kind: `${kind}List` },
    };
  }

  /** A page from `offset` (the continue token), `limit` and the page size bounding its length. */
  private listPage(
    all: FakeCollection,
    query: URLSearchParams,
    list: { apiVersion: string; kind: string },
  ): Response {
    const total = Array.isArray(all) ? all.length : (all as { count: number }).count;
    const at = (index: number) =>
      Array.isArray(all) ? all[index] : (all as { make: (index: number) => unknown }).make(index);
    const offset = Number(query.get("continue")?.replace(/^offset-/, "") || 0);
    const limit = Number(query.get("limit") || Number.POSITIVE_INFINITY);
    const size = Math.min(limit, this.listPageSize ?? Number.POSITIVE_INFINITY, total - offset);
    const items = Array.from({ length: Math.max(0, size) }, (_, index) => at(offset + index));
    const next = offset + items.length;
    return Response.json({
      ...list,
      metadata: {
        resourceVersion: "1",
        ...(next < total ? { continue: `offset-${next}` } : {}),
      },
      items,
    });
  }

  private oversized(bytes: number, declareLength: boolean): Response {
    const chunk = new TextEncoder().encode(`"${"x".repeat(64 * 1024 - 3)}",`);
    const chunks = Math.ceil(bytes / chunk.byteLength);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"items":['));
        if (sent >= chunks) {
          controller.enqueue(new TextEncoder().encode('""]}'));
          controller.close();
          return;
        }
        sent++;
        this.sentBytes += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const length = 10 + chunks * chunk.byteLength + 4;
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (declareLength) headers["Content-Length"] = String(length);
    return new Response(body, { status: 200, headers });
  }

  private answerCore(segments: readonly string[]): Response {
    return answerCoreGet(segments, this.nodes, this.pods);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The object as the apiserver serves it: apiVersion, kind and metadata name/namespace always set. */
function asServed(object: unknown, resource: string, namespace: string, name: string): unknown {
  if (typeof object !== "object" || object === null || Array.isArray(object)) return object;
  const stored = object as Record<string, unknown>;
  const metadata =
    typeof stored.metadata === "object" && stored.metadata !== null ? stored.metadata : {};
  return {
    apiVersion: "apps/v1",
    kind: resource === "deployments" ? "Deployment" : "StatefulSet",
    ...stored,
    metadata: { name, namespace, ...metadata },
  };
}

/** A CocoonHibernation as a LIST serves it: a custom resource's items always carry apiVersion and kind. */
function asServedHibernation(item: unknown): unknown {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return item;
  return {
    apiVersion: `${COCOON_GROUP}/${COCOON_VERSION}`,
    kind: COCOONHIBERNATION_KIND,
    ...item,
  };
}

/**
 * A plain-HTTP server answering every request with `status` and `body`
 * (JSON-encoded unless a string): the far end of a redirect that a client
 * must never follow. `hits` counts the requests it received.
 */
export function startDecoyServer(
  status: number,
  body: unknown,
): { readonly url: string; readonly hits: () => number; stop(): Promise<void> } {
  let hits = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => {
      hits++;
      return new Response(typeof body === "string" ? body : JSON.stringify(body), {
        status,
        headers: { "Content-Type": "application/json" },
      });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    hits: () => hits,
    stop: () => server.stop(true),
  };
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
      ? statusResponse(404, `nodes "${rest[1]}" not found`, { name: rest[1], kind: "nodes" })
      : Response.json(node);
  }
  if (rest.length === 4 && rest[0] === "namespaces" && rest[2] === "pods" && rest[1] && rest[3]) {
    const pod = pods.get(`${rest[1]}/${rest[3]}`);
    return pod === undefined
      ? statusResponse(404, `pods "${rest[3]}" not found`, { name: rest[3], kind: "pods" })
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

/**
 * A `kind: Status` body as the apiserver writes for every failure; `details`
 * name the object when the failure is about one (a GET of a missing object).
 */
function statusResponse(
  code: number,
  message: string,
  details?: { name: string; group?: string; kind: string },
): Response {
  const body = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason: STATUS_REASONS[code] ?? STATUS_CODES[code] ?? "Unknown",
    ...(details ? { details } : {}),
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
      await Bun.sleep(delayMs); // deliberate: the body stalls halfway
      controller.enqueue(encoder.encode(text.slice(half)));
      controller.close();
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}
