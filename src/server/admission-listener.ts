import type { Server } from "bun";
import { errorText } from "../bounded-text";
import { unrefTimeout } from "../clock";
import type { ListenAddress } from "../config";
import {
  type ListeningSocket,
  loadSocketCalls,
  removeFromReuseportGroup,
  type SocketCalls,
  SteeringUnavailable,
} from "./bun-tls-reload-workaround";
import { TLS12_CIPHERS, type TlsPair } from "./tls-pair";

/** Longer than the apiserver client's 90 s, so the client closes idle connections, not us. */
export const IDLE_TIMEOUT_SECONDS = 120;

/** Without steering: how long a replaced listener answers `Connection: close` before it stops. */
const RETIRE_AFTER_MS = 1000;

/** With steering: how long a replaced socket stays in its group, so a handshake begun on it is accepted. */
const RELEASE_LISTENING_SOCKET_AFTER_MS = 1000;

/** With steering: past the idle timeout, so no retired connection closes under a sending client. */
const KEEP_RETIRED_CONNECTIONS_MS = (IDLE_TIMEOUT_SECONDS + 5) * 1000;

const QUEUE_RECHECK_MS = 10;
/** A program index past the end of every group: the kernel then picks by hash, as without one. */
const NO_STEERING_INDEX = 0xffffffff;

export interface AdmissionListenerOptions {
  readonly address: ListenAddress;
  readonly fetch: (request: Request, server: Server<undefined>) => Response | Promise<Response>;
  readonly steering?: "auto" | "off";
  readonly socketCalls?: () => SocketCalls;
  /** Called once, when steering cannot be used (at start or later); rotation then falls back. */
  readonly onSteeringUnavailable?: (problem: SteeringUnavailable) => void;
  readonly onDeferredRotationFailed?: (error: unknown) => void;
}

interface Generation {
  readonly server: Server<undefined>;
  sockets: readonly ListeningSocket[];
  listening: boolean;
  timers: (() => void)[];
}

/**
 * Bun's `server.reload({ tls })` keeps the old certificate, so a rotation
 * starts a second server on the same port; the apiserver does not retry an
 * admission call on a connection reset, so new connections are steered to the
 * newest socket and the old one closes with nothing queued (docs/reliability.md).
 */
export class AdmissionListener {
  readonly #options: AdmissionListenerOptions;
  readonly #draining = new WeakSet<Server<undefined>>();
  readonly #servers = new Set<Server<undefined>>();
  readonly #groups = new Map<string, ListeningSocket[]>();
  readonly #generations = new Set<Generation>();
  #calls: SocketCalls | undefined;
  #shuttingDown = false;
  #current: Generation;
  #port: number;
  #deferred: Timer | undefined;

  constructor(options: AdmissionListenerOptions, pair: TlsPair) {
    this.#options = options;
    this.#port = options.address.port;
    this.#current = this.#listen(pair);
    this.#port = this.#current.server.port ?? this.#port;
    this.#startSteering();
  }

  get port(): number {
    return this.#port;
  }

  get steering(): boolean {
    return this.#calls !== undefined;
  }

  /**
   * Throws, leaving the old listener serving, if Bun rejects `pair`; waits
   * while the listener the previous rotation retired still has connections queued.
   */
  rotate(pair: TlsPair): void {
    clearTimeout(this.#deferred);
    this.#deferred = undefined;
    const retiredListening = [...this.#generations].find(
      (generation) => generation.listening && generation !== this.#current,
    );
    if (retiredListening && !this.#releaseListening(retiredListening)) {
      this.#deferred = setTimeout(() => {
        try {
          this.rotate(pair);
        } catch (error) {
          this.#options.onDeferredRotationFailed?.(error);
        }
      }, QUEUE_RECHECK_MS);
      return;
    }
    const next = this.#listen(pair);
    const previous = this.#current;
    this.#current = next;
    this.#draining.add(previous.server);
    if (this.#calls) this.#steerTo(next);
    if (this.#calls) {
      previous.timers.push(
        unrefTimeout(RELEASE_LISTENING_SOCKET_AFTER_MS, () => this.#releaseWhenIdle(previous)),
        unrefTimeout(KEEP_RETIRED_CONNECTIONS_MS, () => this.#stopGeneration(previous)),
      );
    } else {
      previous.timers.push(unrefTimeout(RETIRE_AFTER_MS, () => this.#stopGeneration(previous)));
    }
  }

  /** From now on every response asks its client to close the connection, on any listener. */
  beginDrain(): void {
    this.#shuttingDown = true;
  }

  /** Stops accepting, lets in-flight requests finish for up to `timeoutMs`, then closes all. */
  async stop(timeoutMs: number): Promise<boolean> {
    clearTimeout(this.#deferred);
    for (const generation of this.#generations) for (const cancel of generation.timers) cancel();
    const servers = [...this.#servers];
    const graceful = Promise.all(servers.map((server) => this.#stop(server, false))).then(
      () => true,
    );
    const timedOut = Bun.sleep(timeoutMs).then(() => false);
    const finished = await Promise.race([graceful, timedOut]);
    await Promise.all(servers.map((server) => this.#stop(server, true)));
    return finished;
  }

  #startSteering(): void {
    try {
      if (this.#options.steering === "off") {
        throw new SteeringUnavailable("disabled", "TLS_ROTATION_STEERING=off");
      }
      const load = this.#options.socketCalls ?? loadSocketCalls;
      this.#calls = load();
      this.#steerTo(this.#current);
    } catch (error) {
      this.#disableSteering(error);
    }
  }

  #steerTo(generation: Generation): void {
    const calls = this.#calls;
    if (!calls) return;
    const known = new Set(this.#steeredSockets().map((socket) => socket.inode));
    try {
      const fresh = calls.listeningSockets(this.#port).filter((socket) => !known.has(socket.inode));
      if (fresh.length === 0) {
        throw new SteeringUnavailable(
          "socket_not_found",
          `no new listening socket on port ${this.#port} in /proc/self/fd`,
        );
      }
      generation.sockets = fresh;
      for (const socket of fresh) this.#group(socket.group).push(socket);
      this.#pointGroupsAtCurrent(calls);
    } catch (error) {
      this.#disableSteering(error);
    }
  }

  #pointGroupsAtCurrent(calls: SocketCalls): void {
    for (const socket of this.#current.sockets) {
      calls.steerGroupTo(socket.fd, this.#group(socket.group).indexOf(socket));
    }
  }

  #group(key: string): ListeningSocket[] {
    let group = this.#groups.get(key);
    if (!group) {
      group = [];
      this.#groups.set(key, group);
    }
    return group;
  }

  #steeredSockets(): ListeningSocket[] {
    return [...this.#groups.values()].flat();
  }

  #releaseWhenIdle(generation: Generation): void {
    if (this.#releaseListening(generation)) return;
    generation.timers.push(unrefTimeout(QUEUE_RECHECK_MS, () => this.#releaseWhenIdle(generation)));
  }

  /**
   * Closes a retired server's listening sockets once their accept queues are
   * empty (false while one is not), keeping its connections; re-points the
   * program in the same tick, as the close moved the group's last socket.
   */
  #releaseListening(generation: Generation): boolean {
    if (!generation.listening) return true;
    const calls = this.#calls;
    if (!calls) {
      this.#stopGeneration(generation);
      return true;
    }
    try {
      if (generation.sockets.some((socket) => calls.acceptQueueLength(socket.fd) > 0)) return false;
      for (const socket of generation.sockets) {
        calls.closeListeningSocket(socket.fd);
        removeFromReuseportGroup(this.#group(socket.group), socket);
      }
      generation.listening = false;
      this.#pointGroupsAtCurrent(calls);
    } catch (error) {
      this.#disableSteering(error);
      this.#stopGeneration(generation);
    }
    return true;
  }

  #disableSteering(error: unknown): void {
    const calls = this.#calls;
    this.#calls = undefined;
    if (calls) {
      for (const socket of this.#steeredSockets()) {
        try {
          calls.steerGroupTo(socket.fd, NO_STEERING_INDEX);
        } catch {
          // the group keeps its program; one listener per group remains after the next retire
        }
      }
    }
    this.#groups.clear();
    const problem =
      error instanceof SteeringUnavailable
        ? error
        : new SteeringUnavailable("refused", errorText(error));
    this.#options.onSteeringUnavailable?.(problem);
    // Retired listeners still waiting for steering to drain them retire the old way.
    for (const generation of this.#generations) {
      if (generation !== this.#current && generation.listening) {
        for (const cancel of generation.timers) cancel();
        generation.timers = [unrefTimeout(RETIRE_AFTER_MS, () => this.#stopGeneration(generation))];
      }
    }
  }

  #stopGeneration(generation: Generation): void {
    if (!this.#generations.has(generation)) return;
    for (const cancel of generation.timers) cancel();
    generation.listening = false;
    this.#generations.delete(generation);
    void this.#stop(generation.server, false);
  }

  #listen(pair: TlsPair): Generation {
    const server = Bun.serve({
      hostname: this.#options.address.hostname,
      port: this.#port,
      reusePort: true,
      idleTimeout: IDLE_TIMEOUT_SECONDS,
      // The app holds MAX_REQUEST_BYTES, so a 413 is its JSON answer, counted and
      // logged; Bun's own limit would answer first, with an empty body.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      tls: { cert: pair.cert, key: pair.key, ciphers: TLS12_CIPHERS },
      fetch: (request, server) => this.#respond(request, server),
    });
    this.#servers.add(server);
    const generation: Generation = { server, sockets: [], listening: true, timers: [] };
    this.#generations.add(generation);
    return generation;
  }

  async #respond(request: Request, server: Server<undefined>): Promise<Response> {
    const response = await this.#options.fetch(request, server);
    if (this.#shuttingDown || this.#draining.has(server))
      response.headers.set("Connection", "close");
    return response;
  }

  async #stop(server: Server<undefined>, closeActiveConnections: boolean): Promise<void> {
    await server.stop(closeActiveConnections);
    this.#servers.delete(server);
  }
}
