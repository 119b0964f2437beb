import { X509Certificate } from "node:crypto";
import type { RequestOptions } from "node:https";
import { z } from "zod";
import { errorText } from "../bounded-text";
import { KubeApiError } from "../contract/reads";
import type { Logger } from "../observability/logger";
import { apiserverFileReloadFailuresTotal } from "../observability/metrics";
import { fileFingerprint, readRegularFile } from "../safe-file";
import type { ClusterAccess } from "./cluster-access";

export type ApiserverCredentials = ReturnType<typeof createCredentials>;

interface Watching {
  readonly recheckMs: number;
  readonly log?: Logger;
}

export function createCredentials(
  access: ClusterAccess,
  options: { recheckMs?: number; log?: Logger },
) {
  const watching: Watching = { recheckMs: options.recheckMs ?? 1000, log: options.log };
  const { cluster, user } = access;
  const ca = pemSource(cluster.caFile, cluster.caData, "cluster_ca", watching);
  const clientCert = pemSource(user.certFile, user.certData, "client_certificate", watching);
  const clientKey = pemSource(user.keyFile, user.keyData, "client_key", watching);
  const tokenFile = access.tokenFile
    ? watchedFile(access.tokenFile, "bearer_token", watching)
    : undefined;
  ca(); // a CA file that cannot be used stops the start, naming it
  const authorization = authorizationSource(access, tokenFile);

  // Rebuilt only when a token or PEM changes: every apiserver call asks for both.
  let headersFor: { value: string | undefined; headers: Record<string, string> } | undefined;
  let tlsFor: { pems: readonly (string | undefined)[]; tls: BunFetchRequestInitTLS } | undefined;

  return {
    async headers(): Promise<Record<string, string>> {
      const value = await authorization();
      if (headersFor && headersFor.value === value) return headersFor.headers;
      const headers: Record<string, string> = {};
      if (value) headers.Authorization = value;
      if (user.impersonateUser) headers["Impersonate-User"] = user.impersonateUser;
      headersFor = { value, headers };
      return headers;
    },
    tls(): BunFetchRequestInitTLS {
      const pems = [ca(), clientCert(), clientKey()] as const;
      if (tlsFor?.pems.every((pem, i) => pem === pems[i])) return tlsFor.tls;
      const [caPem, certPem, keyPem] = pems;
      // Explicit, so NODE_TLS_REJECT_UNAUTHORIZED in the environment cannot turn it off.
      const tls: BunFetchRequestInitTLS = { rejectUnauthorized: true };
      if (caPem) tls.ca = caPem;
      if (certPem) tls.cert = certPem;
      if (keyPem) tls.key = keyPem;
      if (cluster.tlsServerName) tls.serverName = cluster.tlsServerName;
      tlsFor = { pems, tls };
      return tls;
    },
    /** After a 401 the token file may have just rotated: look at it on the next call. */
    unauthorized(): void {
      tokenFile?.recheckNow();
    },
  };
}

type CredentialFile = "cluster_ca" | "client_certificate" | "client_key" | "bearer_token";

const DESCRIPTIONS: Readonly<Record<CredentialFile, string>> = {
  cluster_ca: "cluster CA",
  client_certificate: "client certificate",
  client_key: "client key",
  bearer_token: "bearer token file",
};

type PemSource = () => string | undefined;

function pemSource(
  path: string | undefined,
  base64Data: string | undefined,
  file: CredentialFile,
  watching: Watching,
): PemSource {
  if (path) {
    const watched = watchedFile(path, file, watching);
    return () => watched.read();
  }
  const decoded = base64Data ? Buffer.from(base64Data, "base64").toString("utf8") : undefined;
  if (decoded !== undefined && file === "cluster_ca") {
    try {
      requireCertificateBundle(decoded);
    } catch (error) {
      throw new KubeApiError(
        `cannot use the cluster CA of the kubeconfig (certificate-authority-data): ${errorText(error)}`,
      );
    }
  }
  return () => decoded;
}

type WatchedFile = ReturnType<typeof watchedFile>;

/**
 * A credential file as of its last usable change, stat'ed at most every
 * `recheckMs`. Content unusable mid-rotation keeps the last good one, counted
 * and logged once per change; a file never readable is a KubeApiError.
 */
function watchedFile(path: string, file: CredentialFile, { recheckMs, log }: Watching) {
  let snapshot: { readonly fingerprint: string; readonly content: string } | undefined;
  let refusedFingerprint: string | undefined;
  let checkedAt = Number.NEGATIVE_INFINITY;

  const refresh = (previous: typeof snapshot) => {
    let fingerprint: string | undefined;
    try {
      fingerprint = fileFingerprint(path);
      if (previous?.fingerprint === fingerprint) return previous;
      if (previous && fingerprint === refusedFingerprint) return previous;
      const content = readRegularFile(path);
      if (file === "cluster_ca") requireCertificateBundle(content);
      return { fingerprint, content };
    } catch (error) {
      if (previous === undefined) {
        throw new KubeApiError(
          `cannot read the ${DESCRIPTIONS[file]} ${path}: ${errorText(error)}`,
        );
      }
      // A file that cannot even be stat'ed is remembered as such, so it is reported once.
      const refused = fingerprint ?? "(unreadable)";
      if (refused !== refusedFingerprint) {
        apiserverFileReloadFailuresTotal.labels(file).inc();
        log?.warn(
          { path, error: errorText(error) },
          `cannot use the changed ${DESCRIPTIONS[file]}; keeping the previous one`,
        );
      }
      refusedFingerprint = refused;
      return previous;
    }
  };

  return {
    path,
    read(): string {
      const now = performance.now();
      if (snapshot === undefined || now - checkedAt >= recheckMs) {
        checkedAt = now;
        snapshot = refresh(snapshot);
      }
      return snapshot.content;
    },
    recheckNow(): void {
      checkedAt = Number.NEGATIVE_INFINITY;
    },
  };
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * An empty or garbled CA would reach fetch as no CA, and fetch would then
 * trust the system's default store instead of the cluster's.
 */
function requireCertificateBundle(pem: string): void {
  if (pem.trim() === "") throw new Error("it is empty");
  const blocks = pem.match(PEM_CERTIFICATE);
  if (!blocks) throw new Error("it holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
  for (const [index, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      throw new Error(`its certificate #${index + 1} cannot be parsed`);
    }
  }
}

const authorizationHeader = z.looseObject({ Authorization: z.string() });

function authorizationSource(
  access: ClusterAccess,
  tokenFile: WatchedFile | undefined,
): () => Promise<string | undefined> {
  const { user } = access;
  if (tokenFile) {
    return async () => {
      const token = tokenFile.read().trim();
      if (token === "") throw new KubeApiError(`bearer token file ${tokenFile.path} is empty`);
      return `Bearer ${token}`;
    };
  }
  const { kubeConfig } = access;
  if (kubeConfig && (user.exec || user.authProvider)) {
    // Exec plugins and auth providers (cloud CLIs on a developer's machine) stay with client-node.
    return async () => {
      const requestOptions: RequestOptions = {};
      await kubeConfig.applyToHTTPSOptions(requestOptions);
      const headers = authorizationHeader.safeParse(requestOptions.headers);
      return headers.success ? headers.data.Authorization : undefined;
    };
  }
  if (user.token) {
    const header = `Bearer ${user.token.trim()}`;
    return async () => header;
  }
  return async () => undefined;
}
