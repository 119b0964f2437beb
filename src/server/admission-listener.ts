import type { Server } from "bun";
import type { ListenAddress } from "../config";
import { servingTlsOptions, type TlsPair } from "./tls-pair";

/** Longer than the apiserver client's 90 s, so the client closes idle connections, not us. */
export const IDLE_TIMEOUT_SECONDS = 120;

/**
 * How long a replaced listener keeps answering with `Connection: close`
 * before it stops: every connection busy enough to race a close is told to
 * go away first, and in-flight requests finish on it. Counted from the
 * latest rotation: the clients told to reconnect by one rotation must not
 * land in the accept queue of an older listener at the instant it closes.
 */
export const RETIRE_AFTER_MS = 1000;

export interface AdmissionListenerOptions {
  readonly address: ListenAddress;
  readonly maxRequestBodySize: number;
  readonly fetch: (request: Request, server: Server<undefined>) => Response | Promise<Response>;
}

/**
 * The HTTPS admission listener. `server.reload({ tls })` does not swap the
 * served certificate in Bun, so a rotation starts a second server on the
 * same port (SO_REUSEPORT) and retires the old one: new connections reach
 * the new certificate at once, old keep-alive connections are closed
 * cleanly by their client after one last `Connection: close` response.
 */
export class AdmissionListener {
  readonly #options: AdmissionListenerOptions;
  readonly #draining = new WeakSet<Server<undefined>>();
  readonly #servers = new Set<Server<undefined>>();
  readonly #retiring = new Set<Server<undefined>>();
  #retireTimer: Timer | undefined;
  #shuttingDown = false;
  #current: Server<undefined>;
  #port: number;

  constructor(options: AdmissionListenerOptions, pair: TlsPair) {
    this.#options = options;
    this.#port = options.address.port;
    this.#current = this.#listen(pair);
    this.#port = this.#current.port ?? this.#port;
  }

  get port(): number {
    return this.#port;
  }

  /** Serves `pair` from now on. Throws, leaving the old listener serving, if Bun rejects it. */
  rotate(pair: TlsPair): void {
    const next = this.#listen(pair);
    const previous = this.#current;
    this.#current = next;
    this.#draining.add(previous);
    this.#retiring.add(previous);
    clearTimeout(this.#retireTimer);
    this.#retireTimer = setTimeout(() => this.#stopRetired(), RETIRE_AFTER_MS);
    this.#retireTimer.unref();
  }

  #stopRetired(): void {
    for (const server of this.#retiring) void this.#stop(server, false);
    this.#retiring.clear();
  }

  /** From now on every response asks its client to close the connection, on any listener. */
  beginDrain(): void {
    this.#shuttingDown = true;
    for (const server of this.#servers) this.#draining.add(server);
  }

  /** Stops accepting, lets in-flight requests finish for up to `timeoutMs`, then closes all. */
  async stop(timeoutMs: number): Promise<boolean> {
    clearTimeout(this.#retireTimer);
    const servers = [...this.#servers];
    const graceful = Promise.all(servers.map((server) => this.#stop(server, false))).then(
      () => true,
    );
    const timedOut = Bun.sleep(timeoutMs).then(() => false);
    const finished = await Promise.race([graceful, timedOut]);
    await Promise.all(servers.map((server) => this.#stop(server, true)));
    return finished;
  }

  #listen(pair: TlsPair): Server<undefined> {
    const server = Bun.serve({
      hostname: this.#options.address.hostname,
      port: this.#port,
      reusePort: true,
      idleTimeout: IDLE_TIMEOUT_SECONDS,
      maxRequestBodySize: this.#options.maxRequestBodySize,
      tls: servingTlsOptions(pair),
      fetch: (request, server) => this.#respond(request, server),
    });
    this.#servers.add(server);
    if (this.#shuttingDown) this.#draining.add(server);
    return server;
  }

  async #respond(request: Request, server: Server<undefined>): Promise<Response> {
    const response = await this.#options.fetch(request, server);
    if (this.#draining.has(server)) response.headers.set("Connection", "close");
    return response;
  }

  async #stop(server: Server<undefined>, closeActiveConnections: boolean): Promise<void> {
    await server.stop(closeActiveConnections);
    this.#servers.delete(server);
  }
}
