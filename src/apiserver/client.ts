import { cutShort } from "../bounded-text";
import { type ApiserverRead, type KubeApi, KubeApiError, type ObjectRef } from "../contract/reads";
import type { JsonObject } from "../json/read";
import { type ApiResource, collectionPath } from "../kube/api-resources";
import { invalidNameProblem } from "../kube/name-grammar";
import { verifiedObject } from "./answer-status";
import { type ClusterAccess, type ClusterAccessOptions, loadClusterAccess } from "./cluster-access";
import { createCredentials } from "./credentials";
import { instrumented } from "./instrument";
import {
  KEPT_LIST_BOUNDS,
  type KubeLister,
  kubeListerOver,
  LIST_PAGE_LIMIT,
  listPages,
} from "./list-pages";
import { createReadBudget, type ReadBudgetOptions, type ReadHold } from "./read-budget";
import { type ApiserverTransport, createTransport } from "./transport";

export interface KubeApiOptions extends ClusterAccessOptions {
  /** APISERVER_TIMEOUT: bound on each call, auth, headers and body included. */
  readonly timeoutMs: number;
  /** APISERVER_LIST_PAGE_SIZE; default LIST_PAGE_LIMIT. */
  readonly listPageSize?: number;
  /** At most how often rotating files (token, CA, client cert) are looked at; default 1000 ms. */
  readonly fileRecheckMs?: number;
  readonly readBudget?: ReadBudgetOptions;
}

export interface KubeApiHandle {
  readonly api: KubeApi;
  /** Whole collections page by page, for `cocoon-webhook audit`. */
  readonly lister: KubeLister;
  readonly source: ClusterAccess["source"] | "none";
  /** The apiserver URL, when one is configured. */
  readonly server?: string;
}

export const NO_KUBE_API_MESSAGE =
  "no Kubernetes API is configured: set KUBECONFIG or run in-cluster with a service account";

/** An object is at most about 1.5 MiB (etcd's request limit); anything larger is not a real answer. */
export const MAX_OBJECT_ANSWER_BYTES = 4 * 1024 * 1024;

/** The apiserver port; without a cluster every call fails with a KubeApiError saying so. */
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

  /** A read a review waits on: refused unsent past the read budget, else counted once. */
  async function read<T>(
    verb: ApiserverRead["verb"],
    resource: ApiResource,
    operation: string,
    call: (transport: ApiserverTransport, hold: ReadHold) => Promise<T>,
    outcomeOf?: (result: T) => "success" | "not_found",
  ): Promise<T> {
    const hold = budget.begin(operation);
    try {
      const labels = { verb, resource: resource.plural, operation };
      return await instrumented(labels, () => call(connected(operation), hold), outcomeOf, log);
    } finally {
      hold.end();
    }
  }

  const api: KubeApi = {
    async get<Fields extends JsonObject>(resource: ApiResource<Fields>, ref: ObjectRef) {
      const { namespace, name } = ref;
      const operation = `GET ${resource.plural} ${namespace === undefined ? cutShort(name) : `${cutShort(namespace)}/${cutShort(name)}`}`;
      requireValidNames(operation, resource, ref);
      return read(
        "get",
        resource,
        operation,
        async (transport, hold) => {
          const path = `${collectionPath(resource, namespace)}/${name}`;
          const answer = await transport.get(path, {
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
      return read("list", resource, operation, async (transport, hold) => {
        const items: JsonObject[] = [];
        const pages = listPages(transport, resource, namespace, {
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
  return {
    api,
    lister: kubeListerOver(connected, pageSize),
    source: access?.source ?? "none",
    server: transport?.server,
  };
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
