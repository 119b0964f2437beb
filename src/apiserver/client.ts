import { cutShort } from "../bounded-text";
import { type KubeApi, KubeApiError, type ObjectRef } from "../contract/reads";
import type { JsonObject } from "../json/read";
import { type ApiResource, apiVersionOf, collectionPath } from "../kube/api-resources";
import { invalidNameProblem } from "../kube/name-grammar";
import type { Logger } from "../observability/logger";
import { type ExpectedObject, isVerifiedNotFound, verifiedObject } from "./answer-status";
import { type ClusterAccess, type ClusterAccessSource, loadClusterAccess } from "./cluster-access";
import { createCredentials } from "./credentials";
import { instrumented } from "./instrument";
import { expectedListOf, type KubeLister, kubeListerOver, listPages } from "./list-pages";
import {
  createReadBudget,
  type ReadBudget,
  type ReadBudgetOptions,
  type ReadHold,
} from "./read-budget";
import { type ApiserverTransport, createTransport } from "./transport";

export interface KubeApiOptions {
  /** APISERVER_TIMEOUT: bound on each call, auth, headers and body included. */
  readonly timeoutMs: number;
  /** The KUBECONFIG path; when unset, the in-cluster service account is tried. */
  readonly kubeconfigPath?: string;
  /** A context of that kubeconfig instead of its current-context. */
  readonly context?: string;
  /** Prefix for /var/run/secrets/kubernetes.io/serviceaccount (tests); default "". */
  readonly inClusterRoot?: string;
  /** APISERVER_LIST_PAGE_SIZE: objects asked for per LIST page; default LIST_PAGE_LIMIT. */
  readonly listPageSize?: number;
  /** At most how often rotating files (token, CA, client cert) are looked at; default 1000 ms. */
  readonly fileRecheckMs?: number;
  /** Bounds on the reads in flight and what their answers hold; read-budget.ts's unless given. */
  readonly readBudget?: ReadBudgetOptions;
  readonly log?: Logger;
}

export interface KubeApiHandle {
  readonly api: KubeApi;
  /** Whole collections page by page, for `cocoon-webhook audit`. */
  readonly lister: KubeLister;
  readonly source: ClusterAccessSource | "none";
  /** The apiserver URL, when one is configured. */
  readonly server?: string;
}

export const NO_KUBE_API_MESSAGE =
  "no Kubernetes API is configured: set KUBECONFIG or run in-cluster with a service account";

/** The apiserver port; without a cluster every call fails with a KubeApiError saying so. */
export function createKubeApi(options: KubeApiOptions): KubeApiHandle {
  const access = loadClusterAccess(options);
  if (!access) {
    options.log?.warn(`${NO_KUBE_API_MESSAGE}; apiserver-backed checks will fail closed`);
    return {
      api: kubeApiOver(undefined, options),
      lister: kubeListerOver(connectedTo(undefined), options.listPageSize ?? LIST_PAGE_LIMIT),
      source: "none",
    };
  }
  warnAboutIgnoredSettings(access, options.log);
  const transport = createTransport({
    server: access.cluster.server,
    credentials: createCredentials(access, { recheckMs: options.fileRecheckMs, log: options.log }),
    timeoutMs: options.timeoutMs,
    proxyUrl: access.cluster.proxyUrl,
  });
  options.log?.info(
    { source: access.source, server: transport.server, user: access.user.name },
    "apiserver client configured",
  );
  return {
    api: kubeApiOver(transport, options),
    lister: kubeListerOver(connectedTo(transport), options.listPageSize ?? LIST_PAGE_LIMIT),
    source: access.source,
    server: transport.server,
  };
}

/**
 * Caps on apiserver answers: an object is at most about 1.5 MiB (etcd's
 * request limit) and a LIST page LIST_PAGE_LIMIT CocoonHibernations of a
 * few hundred bytes; anything larger is not a real answer.
 */
export const MAX_OBJECT_ANSWER_BYTES = 4 * 1024 * 1024;
const MAX_LIST_PAGE_BYTES = 8 * 1024 * 1024;
/** Objects asked for per LIST page (`?limit=`) unless APISERVER_LIST_PAGE_SIZE says otherwise. */
export const LIST_PAGE_LIMIT = 500;
/** Objects a LIST may hold before it is refused, whatever the page size: 100 pages of 500. */
export const MAX_LISTED_OBJECTS = 50_000;
/** Bytes of the pages of one LIST together, whose items are all kept until it ends. */
export const MAX_LIST_BYTES = 24 * 1024 * 1024;

/** The transport, or a KubeApiError naming `operation` when no Kubernetes API is configured. */
const connectedTo =
  (transport: ApiserverTransport | undefined) =>
  (operation: string): ApiserverTransport => {
    if (!transport) throw new KubeApiError(`${operation}: ${NO_KUBE_API_MESSAGE}`);
    return transport;
  };

function kubeApiOver(
  transport: ApiserverTransport | undefined,
  {
    log,
    listPageSize = LIST_PAGE_LIMIT,
    readBudget,
  }: Pick<KubeApiOptions, "log" | "listPageSize" | "readBudget">,
): KubeApi {
  const connected = connectedTo(transport);
  const budget = createReadBudget(readBudget);
  return {
    /** The very object asked for, `undefined` on the apiserver's own NotFound for it. */
    async get<Fields extends JsonObject>(
      resource: ApiResource<Fields>,
      { namespace, name }: ObjectRef,
    ) {
      const operation = `GET ${resource.plural} ${namespace === undefined ? cutShort(name) : `${cutShort(namespace)}/${cutShort(name)}`}`;
      requireValidNames(operation, resource, { namespace, name });
      return withinBudget(budget, operation, (hold) =>
        instrumented(
          { verb: "get", resource: resource.plural, operation },
          async (): Promise<Fields | undefined> => {
            const expected: ExpectedObject = {
              apiVersion: apiVersionOf(resource),
              kind: resource.kind,
              resource: resource.plural,
              name,
              ...(namespace === undefined ? {} : { namespace }),
            };
            const answer = await connected(operation).get(
              `${collectionPath(resource, namespace)}/${name}`,
              { operation, maxBytes: MAX_OBJECT_ANSWER_BYTES, hold },
            );
            if (isVerifiedNotFound(operation, answer, expected)) return undefined;
            return verifiedObject(operation, answer, expected, resource.fields);
          },
          (object) => (object === undefined ? "not_found" : "success"),
          log,
        ),
      );
    },
    async list(resource: ApiResource, namespace: string) {
      const operation = `LIST ${resource.plural} in ${cutShort(namespace)}`;
      requireValidNames(operation, resource, { namespace });
      return withinBudget(budget, operation, (hold) =>
        instrumented(
          { verb: "list", resource: resource.plural, operation },
          async () => {
            // All pages within one APISERVER_TIMEOUT, every item kept until the last page.
            const pages = listPages(
              connected(operation),
              collectionPath(resource, namespace),
              operation,
              expectedListOf(resource),
              {
                pageSize: listPageSize,
                hold,
                maxPageBytes: MAX_LIST_PAGE_BYTES,
                maxObjects: MAX_LISTED_OBJECTS,
                maxTotalBytes: MAX_LIST_BYTES,
                budget: "shared",
              },
            );
            const items: JsonObject[] = [];
            for await (const page of pages) for (const item of page) items.push(item);
            return items;
          },
          () => "success",
          log,
        ),
      );
    },
  };
}

/** One read a review waits on, held in the read budget until its caller has the answer. */
async function withinBudget<T>(
  budget: ReadBudget,
  operation: string,
  read: (hold: ReadHold) => Promise<T>,
): Promise<T> {
  const hold = budget.begin(operation);
  try {
    return await read(hold);
  } finally {
    hold.end();
  }
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

function warnAboutIgnoredSettings(access: ClusterAccess, log: Logger | undefined): void {
  if (access.cluster.skipTLSVerify) {
    log?.warn(
      { cluster: access.cluster.name },
      "insecure-skip-tls-verify is ignored: the apiserver certificate is always verified",
    );
  }
  if (access.cluster.server.startsWith("http://")) {
    log?.warn(
      { server: access.cluster.server },
      "the apiserver is reached over plain HTTP, without TLS",
    );
  }
}
