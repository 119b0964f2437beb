import { errorText } from "../errors";
import type { ApiserverCredentials } from "./credentials";
import { KubeApiError } from "./port";

/** A call that ran out of APISERVER_TIMEOUT; counted as outcome `timeout`. */
export class KubeApiTimeoutError extends KubeApiError {}

/** An answer from the apiserver, whatever its status; the body is read in full. */
export interface RawAnswer {
  readonly status: number;
  readonly body: string;
}

export interface ApiserverTransport {
  readonly server: string;
  /** GET `path` with JSON accepted; throws KubeApiError when no answer arrives in time. */
  get(path: string, operation: string): Promise<RawAnswer>;
}

export interface TransportOptions {
  readonly server: string;
  readonly credentials: ApiserverCredentials;
  readonly timeoutMs: number;
  readonly proxyUrl?: string;
}

/**
 * Requests go through Bun's own fetch with `tls: { ca, cert, key }`: client-node
 * hands its CA to an undici dispatcher, which Bun's fetch ignores, so its
 * typed APIs cannot verify a private cluster CA under Bun.
 */
export function createTransport(options: TransportOptions): ApiserverTransport {
  const server = options.server.replace(/\/+$/, "");
  return {
    server,
    async get(path, operation) {
      // One signal for the auth headers, the response headers and the body.
      const signal = AbortSignal.timeout(options.timeoutMs);
      try {
        const headers = await untilAborted(signal, options.credentials.headers());
        const response = await fetch(`${server}${path}`, {
          method: "GET",
          headers: { ...headers, Accept: "application/json" },
          tls: options.credentials.tls(),
          signal,
          ...(options.proxyUrl ? { proxy: options.proxyUrl } : {}),
        });
        const body = await response.text();
        if (response.status === 401) options.credentials.unauthorized();
        return { status: response.status, body };
      } catch (error) {
        if (error instanceof KubeApiError) throw error;
        throw describeFailure(error, { operation, server, signal, timeoutMs: options.timeoutMs });
      }
    },
  };
}

function untilAborted<T>(signal: AbortSignal, work: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

const TLS_ERROR_CODE = /CERT|SIGNATURE|SELF_SIGNED|ISSUER|TLS|SSL|HANDSHAKE/i;

function describeFailure(
  error: unknown,
  context: { operation: string; server: string; signal: AbortSignal; timeoutMs: number },
): KubeApiError {
  const { operation, server } = context;
  if (context.signal.aborted) {
    return new KubeApiTimeoutError(
      `${operation}: timed out after ${context.timeoutMs}ms waiting for the apiserver ${server}`,
    );
  }
  const code = errorCode(error);
  const detail = shortMessage(error);
  if (code && TLS_ERROR_CODE.test(code)) {
    return new KubeApiError(
      `${operation}: TLS: unable to verify the certificate of the apiserver ${server}: ${detail} (${code}); ` +
        "check the cluster CA (certificate-authority-data in the kubeconfig, or the service account's ca.crt)",
    );
  }
  return new KubeApiError(
    `${operation}: cannot reach the apiserver ${server}: ${detail}${code && !detail.includes(code) ? ` (${code})` : ""}`,
  );
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}

/** Bun appends a hint about `verbose: true` that means nothing to an operator. */
function shortMessage(error: unknown): string {
  return errorText(error)
    .replace(/\s*For more information, pass `verbose: true`.*$/s, "")
    .trim();
}
