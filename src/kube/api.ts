import { COCOON_GROUP, COCOON_VERSION, COCOONHIBERNATION_PLURAL } from "../cocoon/keys";
import type { WorkloadResource } from "../cocoon/workload";
import { decodeListItems, decodeObject, isSuccess, statusError } from "./answers";
import {
  type ClusterAccess,
  type ClusterAccessSource,
  type KubeLog,
  loadClusterAccess,
} from "./config";
import { createCredentials } from "./credentials";
import { type ApiserverTransport, createTransport } from "./http";
import { instrumented } from "./instrument";
import {
  type ExpectedObject,
  NODES_RESOURCE,
  PODS_RESOURCE,
  requireAnsweredObject,
} from "./object-identity";
import { type KubeApi, KubeApiError } from "./port";

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
 * with a KubeApiError saying so (SPEC §10).
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

function kubeApiOver(transport: ApiserverTransport | undefined, log: KubeLog | undefined): KubeApi {
  const send = (path: string, operation: string) => {
    if (!transport) throw new KubeApiError(`${operation}: ${NO_KUBE_API_MESSAGE}`);
    return transport.get(path, operation);
  };
  /** GET of a core/v1 object: `undefined` on 404, the very object asked for on 2xx, else a KubeApiError. */
  const getCoreObject = (
    path: string,
    operation: string,
    resource: typeof NODES_RESOURCE | typeof PODS_RESOURCE,
    expected: ExpectedObject,
  ) =>
    instrumented(
      { verb: "get", resource, operation },
      async () => {
        const answer = await send(path, operation);
        if (answer.status === 404) return undefined;
        if (!isSuccess(answer)) throw statusError(operation, answer);
        return requireAnsweredObject(
          operation,
          answer.status,
          decodeObject(operation, answer),
          expected,
        );
      },
      (object) => (object === undefined ? "not_found" : "success"),
      log,
    );
  return {
    getWorkload(resource: WorkloadResource, namespace: string, name: string) {
      const operation = `GET ${resource} ${namespace}/${name}`;
      const path = `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/${resource}/${encodeURIComponent(name)}`;
      return instrumented(
        { verb: "get", resource, operation },
        async () => {
          const answer = await send(path, operation);
          if (answer.status === 404) return undefined;
          if (!isSuccess(answer)) throw statusError(operation, answer);
          return decodeObject(operation, answer);
        },
        (workload) => (workload === undefined ? "not_found" : "success"),
        log,
      );
    },
    getNode(name: string) {
      const operation = `GET ${NODES_RESOURCE} ${name}`;
      const path = `/api/v1/${NODES_RESOURCE}/${encodeURIComponent(name)}`;
      return getCoreObject(path, operation, NODES_RESOURCE, {
        apiVersion: "v1",
        kind: "Node",
        name,
      });
    },
    getPod(namespace: string, name: string) {
      const operation = `GET ${PODS_RESOURCE} ${namespace}/${name}`;
      const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/${PODS_RESOURCE}/${encodeURIComponent(name)}`;
      return getCoreObject(path, operation, PODS_RESOURCE, {
        apiVersion: "v1",
        kind: "Pod",
        name,
        namespace,
      });
    },
    listHibernations(namespace: string) {
      const operation = `LIST ${COCOONHIBERNATION_PLURAL} in ${namespace}`;
      const path = `/apis/${COCOON_GROUP}/${COCOON_VERSION}/namespaces/${encodeURIComponent(namespace)}/${COCOONHIBERNATION_PLURAL}`;
      return instrumented(
        { verb: "list", resource: COCOONHIBERNATION_PLURAL, operation },
        async () => {
          const answer = await send(path, operation);
          if (!isSuccess(answer)) throw statusError(operation, answer);
          return decodeListItems(operation, answer);
        },
        () => "success",
        log,
      );
    },
  };
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
