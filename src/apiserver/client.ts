import { cutShort } from "../bounded-text";
import { type KubeApi, KubeApiError, type ObjectRef } from "../contract/reads";
import type { JsonObject } from "../json/read";
import { type ApiResource, apiVersionOf, collectionPath } from "../kube/api-resources";
import {
  DNS_LABEL_MAX_LENGTH,
  DNS_SUBDOMAIN_MAX_LENGTH,
  isDnsLabel,
  isDnsSubdomain,
} from "../kube/name-grammar";
import type { Logger } from "../observability/logger";
import {
  type ExpectedList,
  type ExpectedObject,
  isVerifiedNotFound,
  verifiedObject,
} from "./answer-status";
import { type ClusterAccess, type ClusterAccessSource, loadClusterAccess } from "./cluster-access";
import { createCredentials } from "./credentials";
import { instrumented } from "./instrument";
import { listPages } from "./list-pages";
import { type KubeLister, kubeListerOver } from "./list-stream";
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

/**
 * The apiserver port for the rules. Throws at start only for a KUBECONFIG
 * that cannot be loaded; without any cluster configuration every call fails
 * with a KubeApiError saying so.
 */
export function createKubeApi(options: KubeApiOptions): KubeApiHandle {
  const access = loadClusterAccess(options);
  if (!access) {
    options.log?.warn(`${NO_KUBE_API_MESSAGE}; apiserver-backed checks will fail closed`);
    return {
      api: kubeApiOver(undefined, options),
      lister: listerOver(undefined, options),
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
    {
      source: access.source,
      server: transport.server,
      user: access.user.name,
    },
    "apiserver client configured",
  );
  return {
    api: kubeApiOver(transport, options),
    lister: listerOver(transport, options),
    source: access.source,
    server: transport.server,
  };
}

/**
 * Caps on apiserver answers. The apiserver stores an object of at most about
 * 1.5 MiB (etcd's request limit), and its JSON rendering stays well under
 * 4 MiB; a LIST page holds at most LIST_PAGE_LIMIT CocoonHibernations of a
 * few hundred bytes each, so 8 MiB is generous. Anything larger is not a
 * real answer, and reading it would only cost memory.
 */
export const MAX_OBJECT_ANSWER_BYTES = 4 * 1024 * 1024;
export const MAX_LIST_PAGE_BYTES = 8 * 1024 * 1024;
/** Objects asked for per LIST page (`?limit=`) unless APISERVER_LIST_PAGE_SIZE says otherwise. */
export const LIST_PAGE_LIMIT = 500;
/** Objects a LIST may hold before it is refused, whatever the page size: 100 pages of 500. */
export const MAX_LISTED_OBJECTS = 50_000;
/**
 * Bytes of the pages of one LIST together: 50 000 CocoonHibernations of a few
 * hundred bytes each. Items are kept until the LIST ends, so without it 100
 * pages of MAX_LIST_PAGE_BYTES would be kept too.
 */
export const MAX_LIST_BYTES = 24 * 1024 * 1024;

/** The transport, or a KubeApiError naming `operation` when no Kubernetes API is configured. */
const connectedTo =
  (transport: ApiserverTransport | undefined) =>
  (operation: string): ApiserverTransport => {
    if (!transport) throw new KubeApiError(`${operation}: ${NO_KUBE_API_MESSAGE}`);
    return transport;
  };

function listerOver(
  transport: ApiserverTransport | undefined,
  { listPageSize = LIST_PAGE_LIMIT }: Pick<KubeApiOptions, "listPageSize">,
): KubeLister {
  return kubeListerOver(connectedTo(transport), listPageSize);
}

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
    /**
     * A verified GET: the very object asked for, `undefined` on the apiserver's
     * own NotFound for it, else a KubeApiError. The handlers read its fields
     * themselves and fail closed on ones they cannot read.
     */
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
          () => {
            const expected: ExpectedList = {
              apiVersion: apiVersionOf(resource),
              kind: `${resource.kind}List`,
              itemKind: resource.kind,
            };
            return listAllPages(
              connected(operation),
              collectionPath(resource, namespace),
              operation,
              expected,
              { pageSize: listPageSize, hold },
            );
          },
          () => "success",
          log,
        ),
      );
    },
  };
}

/**
 * Every item of a LIST, all pages within one APISERVER_TIMEOUT budget, at
 * most MAX_LISTED_OBJECTS in at most MAX_LIST_BYTES: the webhook keeps them
 * all to decide, so a LIST past a bound fails before the page's items are kept.
 */
async function listAllPages(
  transport: ApiserverTransport,
  path: string,
  operation: string,
  expected: ExpectedList,
  { pageSize, hold }: { pageSize: number; hold: ReadHold },
): Promise<readonly JsonObject[]> {
  const items: JsonObject[] = [];
  const pages = listPages(transport, path, operation, expected, {
    pageSize,
    hold,
    maxPageBytes: MAX_LIST_PAGE_BYTES,
    maxObjects: MAX_LISTED_OBJECTS,
    maxTotalBytes: MAX_LIST_BYTES,
    budget: "shared",
  });
  for await (const page of pages) for (const item of page) items.push(item);
  return items;
}

/**
 * One read a review waits on, counted among the reads in flight (refused at
 * once past their bound) and holding its answers' bytes until its caller has
 * the answer. Refused before any request is made, so not counted as one.
 */
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

/**
 * Namespaces must be DNS labels and names DNS subdomains before they go into
 * a URL: `.`, `..` or `a/b` would otherwise name another path once the URL
 * is normalised. Checked before any request is made (and so not counted as one).
 */
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
  if (namespace !== undefined && !isDnsLabel(namespace)) {
    throw new KubeApiError(
      `${operation}: the namespace ${quotedName(namespace)} is not a valid ` +
        `namespace name (an RFC 1123 label: at most ${DNS_LABEL_MAX_LENGTH} lowercase letters, ` +
        'digits and "-"), so the apiserver was not asked',
    );
  }
  if (name !== undefined && !isDnsSubdomain(name)) {
    throw new KubeApiError(
      `${operation}: the name ${quotedName(name)} is not a valid object name ` +
        `(an RFC 1123 subdomain: at most ${DNS_SUBDOMAIN_MAX_LENGTH} lowercase letters, digits, ` +
        '"-" and "."), so the apiserver was not asked',
    );
  }
}

function warnAboutIgnoredSettings(access: ClusterAccess, log: Logger | undefined): void {
  if (access.cluster.skipTLSVerify) {
    log?.warn(
      {
        cluster: access.cluster.name,
      },
      "insecure-skip-tls-verify is ignored: the apiserver certificate is always verified",
    );
  }
  if (access.cluster.server.startsWith("http://")) {
    log?.warn(
      {
        server: access.cluster.server,
      },
      "the apiserver is reached over plain HTTP, without TLS",
    );
  }
}

/** A refused name as the message shows it: quoted, and cut at 100 characters. */
function quotedName(name: unknown): string {
  return JSON.stringify(cutShort(String(name), 100));
}
