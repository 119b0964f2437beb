import { cutShort, errorText } from "../bounded-text";
import { type ApiserverRead, type KubeApi, KubeApiError } from "../contract/reads";
import type { JsonObject } from "../json/read";
import { type ApiResource, collectionPath } from "../kube/api-resources";
import { invalidNameProblem, isDnsLabel } from "../kube/name-grammar";
import type { Logger } from "../observability/logger";
import { apiserverRequestDuration, apiserverRequestsTotal } from "../observability/metrics";
import { type ClusterAccess, type ClusterAccessOptions, loadClusterAccess } from "./cluster-access";
import { createCredentials } from "./credentials";
import { KEPT_LIST_BOUNDS, LIST_PAGE_LIMIT, listPages, STREAMED_LIST_BOUNDS } from "./list-pages";
import { createReadBudget, type ReadBudgetOptions, type ReadHold } from "./read-budget";
import { type ApiserverTransport, createTransport, KubeApiTimeoutError } from "./transport";
import { verifiedObject } from "./verified-answers";

export interface KubeApiOptions extends ClusterAccessOptions {
  /** APISERVER_TIMEOUT: bound on each call, auth, headers and body included. */
  readonly timeoutMs: number;
  readonly listPageSize?: number;
  /** At most how often rotating files (token, CA, client cert) are looked at; default 1000 ms. */
  readonly fileRecheckMs?: number;
  readonly readBudget?: ReadBudgetOptions;
}

export interface KubeApiHandle {
  readonly api: KubeApi;
  readonly lister: KubeLister;
  readonly source: ClusterAccess["source"] | "none";
  readonly server?: string;
}

/** Whole collections page by page, for a reader that drops each page once checked (`audit`). */
export interface KubeLister {
  pages(resource: ApiResource, namespace?: string): AsyncIterable<readonly JsonObject[]>;
}

export const NO_KUBE_API_MESSAGE =
  "no Kubernetes API is configured: set KUBECONFIG or run in-cluster with a service account";

/** An object is at most about 1.5 MiB (etcd's request limit); anything larger is not a real answer. */
export const MAX_OBJECT_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * The apiserver port; without a cluster every call fails saying so. A read's
 * names are checked before a URL is built, it takes a place in the read
 * budget, and its answer is verified before anything reads it.
 */
export function createKubeApi(options: KubeApiOptions): KubeApiHandle {
  const { log, timeoutMs } = options;
  const access = loadClusterAccess(options);
  const transport = access && connect(access, options);
  if (!transport) log?.warn(`${NO_KUBE_API_MESSAGE}; apiserver-backed checks will fail closed`);
  const connected = (operation: string): ApiserverTransport => {
    if (!transport) throw new KubeApiError(`${operation}: ${NO_KUBE_API_MESSAGE}`);
    return transport;
  };
  const pageSize = options.listPageSize ?? LIST_PAGE_LIMIT;
  const budget = createReadBudget(options.readBudget);

  async function read<T>(
    call: CallLabels,
    send: (hold: ReadHold) => Promise<T>,
    outcomeOf?: (result: T) => Outcome,
  ): Promise<T> {
    const hold = budget.begin(call.operation);
    try {
      return await counted(call, () => send(hold), outcomeOf, log);
    } finally {
      hold.end();
    }
  }

  const api: KubeApi = {
    async get(resource, ref) {
      const { namespace, name } = ref;
      const operation = `GET ${resource.plural} ${namespace === undefined ? cutShort(name) : `${cutShort(namespace)}/${cutShort(name)}`}`;
      requireValidNames(operation, resource, ref);
      const path = `${collectionPath(resource, namespace)}/${name}`;
      return read(
        { verb: "get", resource: resource.plural, operation },
        async (hold) => {
          const answer = await connected(operation).get(path, {
            operation,
            maxBytes: MAX_OBJECT_ANSWER_BYTES,
            hold,
          });
          return verifiedObject(operation, answer, resource, ref);
        },
        (object) => (object === undefined ? "not_found" : "success"),
      );
    },
    async list(resource, namespace) {
      const operation = `LIST ${resource.plural} in ${cutShort(namespace)}`;
      requireValidNames(operation, resource, { namespace });
      return read({ verb: "list", resource: resource.plural, operation }, async (hold) => {
        const items: JsonObject[] = [];
        const pages = listPages(connected(operation), resource, namespace, {
          operation,
          pageSize,
          ...KEPT_LIST_BOUNDS,
          signal: AbortSignal.timeout(timeoutMs),
          hold,
        });
        for await (const page of pages) items.push(...page);
        return items;
      });
    },
  };

  const lister: KubeLister = {
    /** Each page is one counted call within its own APISERVER_TIMEOUT, outside the read budget. */
    async *pages(resource, namespace) {
      const scope = namespace === undefined ? "" : ` in ${cutShort(namespace)}`;
      const operation = `LIST ${resource.plural}${scope}`;
      if (namespace !== undefined && (!resource.namespaced || !isDnsLabel(namespace))) {
        throw new KubeApiError(`${operation}: not a namespace a LIST can name`);
      }
      const pages = listPages(connected(operation), resource, namespace, {
        operation,
        pageSize,
        ...STREAMED_LIST_BOUNDS,
      });
      for (;;) {
        const call = { verb: "list", resource: resource.plural, operation } as const;
        const next = await counted(call, () => pages.next());
        if (next.done) return;
        yield next.value;
      }
    },
  };

  return { api, lister, source: access?.source ?? "none", server: transport?.server };
}

function connect(access: ClusterAccess, options: KubeApiOptions): ApiserverTransport {
  const { source, cluster, user } = access;
  const { log } = options;
  if (cluster.skipTLSVerify) {
    log?.warn(
      { cluster: cluster.name },
      "insecure-skip-tls-verify is ignored: the apiserver certificate is always verified",
    );
  }
  if (cluster.server.startsWith("http://")) {
    log?.warn({ server: cluster.server }, "the apiserver is reached over plain HTTP, without TLS");
  }
  const transport = createTransport({
    server: cluster.server,
    credentials: createCredentials(access, { recheckMs: options.fileRecheckMs, log }),
    timeoutMs: options.timeoutMs,
    proxyUrl: cluster.proxyUrl,
  });
  log?.info({ source, server: transport.server, user: user.name }, "apiserver client configured");
  return transport;
}

/** A name goes into a URL only once it is valid: `..` or `a/b` would name another path. */
function requireValidNames(
  operation: string,
  resource: ApiResource,
  { namespace, name }: { readonly namespace?: string; readonly name?: string },
): void {
  if (resource.namespaced && namespace === undefined) {
    throw new KubeApiError(
      `${operation}: ${resource.plural} are namespaced, and no namespace was given`,
    );
  }
  const problem = invalidNameProblem({ namespace, name });
  if (problem) throw new KubeApiError(`${operation}: ${problem}, so the apiserver was not asked`);
}

type Outcome = "success" | "not_found" | "error" | "timeout";

interface CallLabels {
  readonly verb: ApiserverRead["verb"];
  readonly resource: string;
  readonly operation: string;
}

/** One call, counted once in both metrics; any error leaves as the port's KubeApiError. */
async function counted<T>(
  { verb, resource, operation }: CallLabels,
  call: () => Promise<T>,
  outcomeOf: (result: T) => Outcome = () => "success",
  log?: Logger,
): Promise<T> {
  const startedAt = performance.now();
  let outcome: Outcome = "error";
  try {
    const result = await call();
    outcome = outcomeOf(result);
    return result;
  } catch (error) {
    outcome = error instanceof KubeApiTimeoutError ? "timeout" : "error";
    throw error instanceof KubeApiError
      ? error
      : new KubeApiError(`${operation}: ${errorText(error)}`);
  } finally {
    const seconds = (performance.now() - startedAt) / 1000;
    apiserverRequestDuration.observe({ verb, resource }, seconds);
    apiserverRequestsTotal.inc({ verb, resource, outcome });
    log?.debug({ operation, outcome, durationMs: seconds * 1000 }, "apiserver call");
  }
}
