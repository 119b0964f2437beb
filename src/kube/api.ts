import { z } from "zod";
import {
  DNS_LABEL_MAX_LENGTH,
  DNS_SUBDOMAIN_MAX_LENGTH,
  isDnsLabel,
  isDnsSubdomain,
} from "../cocoon/names";
import {
  COCOON_GROUP,
  COCOON_VERSION,
  COCOONHIBERNATION_KIND,
  COCOONHIBERNATION_PLURAL,
} from "../cocoon/resources";
import {
  parentWorkloadFields,
  WORKLOAD_API_VERSION,
  WORKLOAD_KINDS,
  type WorkloadResource,
} from "../cocoon/workload";
import { echo } from "../echo";
import {
  type ExpectedList,
  type ExpectedObject,
  isVerifiedNotFound,
  verifiedListPage,
  verifiedObject,
} from "./answers";
import {
  type ClusterAccess,
  type ClusterAccessSource,
  type KubeLog,
  loadClusterAccess,
} from "./config";
import { createCredentials } from "./credentials";
import { type ApiserverTransport, createTransport } from "./http";
import { instrumented } from "./instrument";
import { type KubeApi, KubeApiError, NODES_RESOURCE, PODS_RESOURCE } from "./kube-api";

export interface KubeApiOptions {
  /** APISERVER_TIMEOUT: bound on each call, auth, headers and body included. */
  readonly timeoutMs: number;
  /** The KUBECONFIG path; when unset, the in-cluster service account is tried. */
  readonly kubeconfigPath?: string;
  /** Prefix for /var/run/secrets/kubernetes.io/serviceaccount (tests); default "". */
  readonly inClusterRoot?: string;
  /** At most how often rotating files (token, CA, client cert) are looked at; default 1000 ms. */
  readonly fileRecheckMs?: number;
  readonly log?: KubeLog;
}

export interface KubeApiHandle {
  readonly api: KubeApi;
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
    options.log?.("warn", `${NO_KUBE_API_MESSAGE}; apiserver-backed checks will fail closed`);
    return { api: kubeApiOver(undefined, options.log), source: "none" };
  }
  warnAboutIgnoredSettings(access, options.log);
  const transport = createTransport({
    server: access.cluster.server,
    credentials: createCredentials(access, { recheckMs: options.fileRecheckMs, log: options.log }),
    timeoutMs: options.timeoutMs,
    proxyUrl: access.cluster.proxyUrl,
  });
  options.log?.("info", "apiserver client configured", {
    source: access.source,
    server: transport.server,
    user: access.user.name,
  });
  return {
    api: kubeApiOver(transport, options.log),
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
/** Objects asked for per LIST page (`?limit=`). */
export const LIST_PAGE_LIMIT = 500;
/** Pages followed before a LIST is refused: 100 × 500 hibernations in one namespace. */
export const MAX_LIST_PAGES = 100;

/** Nodes and bound pods are read leniently by the pod gate itself, which fails closed on what it cannot read. */
const anyObjectFields = z.looseObject({});

const HIBERNATION_LIST: ExpectedList = {
  apiVersion: `${COCOON_GROUP}/${COCOON_VERSION}`,
  kind: `${COCOONHIBERNATION_KIND}List`,
  itemKind: COCOONHIBERNATION_KIND,
};

function kubeApiOver(transport: ApiserverTransport | undefined, log: KubeLog | undefined): KubeApi {
  const connected = (operation: string): ApiserverTransport => {
    if (!transport) throw new KubeApiError(`${operation}: ${NO_KUBE_API_MESSAGE}`);
    return transport;
  };
  /**
   * A verified GET: the very object asked for, `undefined` on the apiserver's
   * own NotFound for it, else a KubeApiError. The rules read its fields
   * themselves and fail closed on ones they cannot read.
   */
  const getVerified = <Fields extends z.ZodType>(
    resource: WorkloadResource | typeof NODES_RESOURCE | typeof PODS_RESOURCE,
    path: string,
    operation: string,
    expected: ExpectedObject,
    fields: Fields,
  ) =>
    instrumented(
      { verb: "get", resource, operation },
      async (): Promise<z.output<Fields> | undefined> => {
        const answer = await connected(operation).get(path, {
          operation,
          maxBytes: MAX_OBJECT_ANSWER_BYTES,
        });
        if (isVerifiedNotFound(operation, answer, expected)) return undefined;
        return verifiedObject(operation, answer, expected, fields);
      },
      (object) => (object === undefined ? "not_found" : "success"),
      log,
    );
  return {
    async getWorkload(resource: WorkloadResource, namespace: string, name: string) {
      const operation = `GET ${resource} ${echo(namespace)}/${echo(name)}`;
      requireValidNames(operation, { namespace, name });
      const path = `/apis/${WORKLOAD_API_VERSION}/namespaces/${namespace}/${resource}/${name}`;
      const expected: ExpectedObject = {
        apiVersion: WORKLOAD_API_VERSION,
        kind: WORKLOAD_KINDS[resource],
        resource,
        name,
        namespace,
      };
      return getVerified(resource, path, operation, expected, parentWorkloadFields);
    },
    async getNode(name: string) {
      const operation = `GET ${NODES_RESOURCE} ${echo(name)}`;
      requireValidNames(operation, { name });
      return getVerified(
        NODES_RESOURCE,
        `/api/v1/${NODES_RESOURCE}/${name}`,
        operation,
        {
          apiVersion: "v1",
          kind: "Node",
          resource: NODES_RESOURCE,
          name,
        },
        anyObjectFields,
      );
    },
    async getPod(namespace: string, name: string) {
      const operation = `GET ${PODS_RESOURCE} ${echo(namespace)}/${echo(name)}`;
      requireValidNames(operation, { namespace, name });
      const path = `/api/v1/namespaces/${namespace}/${PODS_RESOURCE}/${name}`;
      return getVerified(
        PODS_RESOURCE,
        path,
        operation,
        {
          apiVersion: "v1",
          kind: "Pod",
          resource: PODS_RESOURCE,
          name,
          namespace,
        },
        anyObjectFields,
      );
    },
    async listHibernations(namespace: string) {
      const operation = `LIST ${COCOONHIBERNATION_PLURAL} in ${echo(namespace)}`;
      requireValidNames(operation, { namespace });
      const path = `/apis/${COCOON_GROUP}/${COCOON_VERSION}/namespaces/${namespace}/${COCOONHIBERNATION_PLURAL}`;
      return instrumented(
        { verb: "list", resource: COCOONHIBERNATION_PLURAL, operation },
        () => listAllPages(connected(operation), path, operation, HIBERNATION_LIST),
        () => "success",
        log,
      );
    },
  };
}

/**
 * Every item of a LIST, following `metadata.continue` page by page, all
 * pages within one APISERVER_TIMEOUT budget and at most MAX_LIST_PAGES.
 */
async function listAllPages(
  transport: ApiserverTransport,
  path: string,
  operation: string,
  expected: ExpectedList,
): Promise<readonly Record<string, unknown>[]> {
  const budget = transport.budget();
  const items: Record<string, unknown>[] = [];
  let continueToken: string | undefined;
  for (let page = 1; page <= MAX_LIST_PAGES; page++) {
    const query = new URLSearchParams({ limit: String(LIST_PAGE_LIMIT) });
    if (continueToken) query.set("continue", continueToken);
    const answer = await transport.get(`${path}?${query}`, {
      operation,
      maxBytes: MAX_LIST_PAGE_BYTES,
      budget,
    });
    const listed = verifiedListPage(operation, answer, expected);
    for (const item of listed.items) items.push(item);
    if (!listed.continueToken) return items;
    continueToken = listed.continueToken;
  }
  throw new KubeApiError(
    `${operation}: the list did not end after ${MAX_LIST_PAGES} pages of ${LIST_PAGE_LIMIT}; ` +
      "refusing to read more",
  );
}

/**
 * Namespaces must be DNS labels and names DNS subdomains before they go into
 * a URL: `.`, `..` or `a/b` would otherwise name another path once the URL
 * is normalised. Checked before any request is made (and so not counted as one).
 */
function requireValidNames(
  operation: string,
  { namespace, name }: { readonly namespace?: string; readonly name?: string },
): void {
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

function warnAboutIgnoredSettings(access: ClusterAccess, log: KubeLog | undefined): void {
  if (access.cluster.skipTLSVerify) {
    log?.(
      "warn",
      "insecure-skip-tls-verify is ignored: the apiserver certificate is always verified",
      {
        cluster: access.cluster.name,
      },
    );
  }
  if (access.cluster.server.startsWith("http://")) {
    log?.("warn", "the apiserver is reached over plain HTTP, without TLS", {
      server: access.cluster.server,
    });
  }
}

/** A refused name as the message shows it: quoted, and cut at 100 characters. */
function quotedName(name: unknown): string {
  return JSON.stringify(echo(String(name), 100));
}
