import { existsSync } from "node:fs";
import { isIPv6 } from "node:net";
import { dirname, isAbsolute, join } from "node:path";
import type { Cluster, KubeConfig, User } from "@kubernetes/client-node";
import { z } from "zod";
import { errorText } from "../bounded-text";
import type { Logger } from "../observability/logger";
import { readRegularFile } from "../safe-file";

/** The current context of a loaded KubeConfig, plus the token file client-node would not re-read. */
export interface ClusterAccess {
  readonly source: "kubeconfig" | "in-cluster";
  readonly kubeConfig?: KubeConfig;
  readonly cluster: Cluster;
  readonly user: User;
  readonly tokenFile?: string;
}

/** Mirrors client-node's loadFromCluster(), which prefixes these paths with its pathPrefix. */
const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

export interface ClusterAccessOptions {
  readonly kubeconfigPath?: string;
  /** A context of the kubeconfig to use instead of its current-context (`audit --context`). */
  readonly context?: string;
  /** Prefix for the service-account files (tests); the real root is "". */
  readonly inClusterRoot?: string;
  readonly log?: Logger;
}

/** KUBECONFIG, else in-cluster, else none; a bad KUBECONFIG throws: a typo never falls back. */
export function loadClusterAccess(options: ClusterAccessOptions): ClusterAccess | undefined {
  if (options.kubeconfigPath) return loadKubeconfigFile(options.kubeconfigPath, options.context);
  if (options.context !== undefined) {
    throw new Error(`context "${options.context}" was asked for, but no kubeconfig is given`);
  }
  return loadInCluster(options.inClusterRoot ?? "", options.log);
}

/** client-node, most of start-up's time and memory, is loaded only for a KUBECONFIG. */
function loadKubeconfigFile(path: string, context: string | undefined): ClusterAccess {
  const { KubeConfig } =
    require("@kubernetes/client-node") as typeof import("@kubernetes/client-node");
  const { parse: parseYaml } = require("yaml") as typeof import("yaml");
  const kubeConfig = new KubeConfig();
  let raw: z.infer<typeof rawKubeconfig> | undefined;
  try {
    // Read here, not by loadFromFile, so a FIFO or a device cannot hang start-up.
    const text = readRegularFile(path);
    raw = rawKubeconfig.safeParse(parseYaml(text)).data;
    // client-node reads a user's `token-file` with a plain blocking read while it parses.
    for (const entry of raw?.users ?? []) {
      const file = entry.user?.["token-file"];
      if (file) readRegularFile(file);
    }
    kubeConfig.loadFromString(text);
    kubeConfig.makePathsAbsolute(dirname(path));
  } catch (error) {
    throw new Error(`KUBECONFIG ${path}: cannot load kubeconfig: ${errorText(error)}`);
  }
  if (context !== undefined) {
    if (!kubeConfig.getContextObject(context)) {
      const known = kubeConfig.getContexts().map((each) => each.name);
      throw new Error(
        `KUBECONFIG ${path}: it has no context "${context}" (its contexts: ${known.join(", ") || "none"})`,
      );
    }
    kubeConfig.setCurrentContext(context);
  }
  const cluster = kubeConfig.getCurrentCluster();
  const user = kubeConfig.getCurrentUser();
  const current = kubeConfig.getCurrentContext();
  if (!cluster) {
    throw new Error(
      `KUBECONFIG ${path}: current context "${current}" names no cluster; set current-context`,
    );
  }
  if (!user) throw new Error(`KUBECONFIG ${path}: current context "${current}" names no user`);
  // The apiserver dropped basic authentication in Kubernetes 1.19: such a user can only get 401s.
  if (user.username || user.password) {
    throw new Error(
      `KUBECONFIG ${path}: user "${user.name}" has a username and password (users[].user.username), ` +
        "basic authentication, which the apiserver has not accepted since Kubernetes 1.19; " +
        "give the user a token (token or tokenFile) or a client certificate " +
        "(client-certificate and client-key) instead",
    );
  }
  // client-node would re-read the CA and client-certificate files with blocking reads on every
  // request: the webhook reads them itself, through the safe reader.
  const authenticationOnly = new KubeConfig();
  authenticationOnly.loadFromClusterAndUser(
    { ...cluster, caFile: undefined },
    { ...user, certFile: undefined, keyFile: undefined },
  );
  const tokenFile = kubeconfigTokenFile(path, raw, user);
  return { source: "kubeconfig", kubeConfig: authenticationOnly, cluster, user, tokenFile };
}

function loadInCluster(root: string, log: Logger | undefined): ClusterAccess | undefined {
  const host = process.env.KUBERNETES_SERVICE_HOST;
  const port = process.env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) return undefined;
  const tokenFile = `${root}${SERVICE_ACCOUNT_DIR}/token`;
  if (!existsSync(tokenFile)) {
    log?.warn(
      { tokenFile },
      "KUBERNETES_SERVICE_HOST is set but there is no service-account token",
    );
    return undefined;
  }
  const caFile = `${root}${SERVICE_ACCOUNT_DIR}/ca.crt`;
  if (!existsSync(caFile)) {
    throw new Error(`in-cluster config: the cluster CA ${caFile} does not exist`);
  }
  // As client-go's InClusterConfig: always HTTPS, the host bracketed when it is IPv6.
  const server = `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
  const cluster: Cluster = { name: "in-cluster", server, caFile, skipTLSVerify: false };
  return { source: "in-cluster", cluster, user: { name: "in-cluster" }, tokenFile };
}

const tokenFileFields = z.looseObject({
  tokenFile: z.string().min(1).optional(),
  "token-file": z.string().min(1).optional(),
});

const rawKubeconfig = z.looseObject({
  users: z.array(z.looseObject({ name: z.string(), user: tokenFileFields.nullish() })).nullish(),
});

const tokenFileAuthProvider = z.looseObject({
  config: z.looseObject({ tokenFile: z.string().min(1) }),
});

/**
 * client-node drops client-go's `tokenFile` and reads its own `token-file` only once, so the
 * raw document is asked; a relative path is relative to the kubeconfig's folder, as in client-go.
 */
function kubeconfigTokenFile(
  kubeconfigPath: string,
  raw: z.infer<typeof rawKubeconfig> | undefined,
  user: User,
): string | undefined {
  const fromAuthProvider = tokenFileAuthProvider.safeParse(user.authProvider);
  const rawUser = raw?.users?.find((entry) => entry.name === user.name);
  const path =
    rawUser?.user?.tokenFile ??
    rawUser?.user?.["token-file"] ??
    (fromAuthProvider.success ? fromAuthProvider.data.config.tokenFile : undefined);
  if (path === undefined) return undefined;
  return isAbsolute(path) ? path : join(dirname(kubeconfigPath), path);
}
