import { cutShort, errorText } from "../bounded-text";
import { KubeApiError } from "../contract/reads";
import { ContainerCounter, MAX_DECODED_CONTAINERS } from "../json/containers";
import type { ApiserverCredentials } from "./credentials";
import { decodedCost, type ReadHold } from "./read-budget";

/** A call that ran out of APISERVER_TIMEOUT; counted as outcome `timeout`. */
export class KubeApiTimeoutError extends KubeApiError {}

export interface RawAnswer {
  readonly status: number;
  readonly body: string;
}

export interface GetOptions {
  /** `GET deployments default/web`: the prefix of every error message. */
  readonly operation: string;
  readonly maxBytes: number;
  /** The APISERVER_TIMEOUT this request spends, when several share one (the pages of a LIST). */
  readonly signal?: AbortSignal;
  readonly hold?: ReadHold;
}

export type ApiserverTransport = ReturnType<typeof createTransport>;

/**
 * Bun's fetch with `tls`: client-node hands its CA to an undici dispatcher,
 * which Bun ignores. No redirect is followed: the apiserver sends none for
 * these reads, and a 404 from something in between must not decide a check.
 */
export function createTransport(options: {
  readonly server: string;
  readonly credentials: ApiserverCredentials;
  readonly timeoutMs: number;
  readonly proxyUrl?: string;
}) {
  const server = options.server.replace(/\/+$/, "");
  return {
    server,
    async get(
      path: string,
      { operation, maxBytes, signal: shared, hold }: GetOptions,
    ): Promise<RawAnswer> {
      // One signal for the auth headers, the response headers and the body.
      const signal = shared ?? AbortSignal.timeout(options.timeoutMs);
      try {
        const auth = await untilAborted(signal, options.credentials.headers());
        const response = await fetch(`${server}${path}`, {
          method: "GET",
          headers: { ...auth, Accept: "application/json", "Accept-Encoding": "identity" },
          tls: options.credentials.tls(),
          signal,
          redirect: "manual",
          // Bun decodes gzip, br, zstd and deflate before the cap could count a byte,
          // and goes on decoding after the body is cancelled: only raw bytes are read.
          decompress: false,
          ...(options.proxyUrl ? { proxy: options.proxyUrl } : {}),
        });
        const refusal = refusedUnread(operation, response);
        if (refusal) {
          await response.body?.cancel();
          throw refusal;
        }
        const body = await readCapped(response, { maxBytes, operation, hold });
        if (response.status === 401) options.credentials.unauthorized();
        return { status: response.status, body };
      } catch (error) {
        if (error instanceof KubeApiError) throw error;
        throw describeFailure(error, { operation, server, signal, timeoutMs: options.timeoutMs });
      }
    },
  };
}

/** An encoded answer is refused unread: a few hundred bytes of brotli can stand for a gibibyte. */
function refusedUnread(operation: string, response: Response): KubeApiError | undefined {
  const { status, headers } = response;
  if (status >= 300 && status < 400) {
    const location = headers.get("location");
    const target = location ? ` to ${JSON.stringify(cutShort(location, 200))}` : "";
    return new KubeApiError(
      `${operation}: apiserver answered ${status} (a redirect${target}); redirects are ` +
        "not followed, so the answer cannot be trusted: check the apiserver URL of the kubeconfig " +
        "and any proxy in between",
      status,
    );
  }
  const encoding = headers.get("content-encoding")?.trim();
  if (encoding && encoding.toLowerCase() !== "identity") {
    return new KubeApiError(
      `${operation}: apiserver answered ${status} with Content-Encoding ` +
        `${JSON.stringify(cutShort(encoding))} although identity was asked for; an encoded answer ` +
        "is refused unread, as its decoded size is unknown: check any proxy between the webhook " +
        "and the apiserver",
      status,
    );
  }
  return undefined;
}

/** Refused without reading the rest once past `maxBytes` or MAX_DECODED_CONTAINERS. */
async function readCapped(
  response: Response,
  { maxBytes, operation, hold }: { maxBytes: number; operation: string; hold?: ReadHold },
): Promise<string> {
  const refused = (what: string) =>
    new KubeApiError(
      `${operation}: apiserver answered ${response.status} with a body ${what}; such an answer is refused unread`,
      response.status,
    );
  const tooLarge = () => refused(`larger than ${maxBytes} bytes`);
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  const containers = new ContainerCounter();
  let received = 0;
  let contained = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > maxBytes) throw tooLarge();
      contained = containers.add(value, MAX_DECODED_CONTAINERS);
      if (contained > MAX_DECODED_CONTAINERS) {
        throw refused(
          `holding more than ${MAX_DECODED_CONTAINERS} JSON objects and arrays, more than one ` +
            "answer may decode; no object or page the apiserver stores is shaped like that",
        );
      }
      hold?.charge(value.byteLength);
      chunks.push(value);
    }
  } catch (error) {
    chunks.length = 0;
    await reader.cancel().catch(() => {});
    throw error;
  }
  hold?.charge(decodedCost(received, contained) - received);
  return Buffer.concat(chunks, received).toString("utf8");
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
  const code =
    typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
      ? error.code
      : undefined;
  // Bun appends a hint about `verbose: true` that means nothing to an operator.
  const detail = errorText(error)
    .replace(/\s*For more information, pass `verbose: true`.*$/s, "")
    .trim();
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
