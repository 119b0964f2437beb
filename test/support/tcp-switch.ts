import type { Socket } from "bun";

/**
 * A plain TCP relay on 127.0.0.1 whose target can be switched: TLS passes
 * through untouched, so a client sees whichever server the relay points at
 * under one address, the way a hijacked address or DNS name would look.
 */
export interface TcpSwitch {
  readonly port: number;
  /** New connections go to `port`; open ones are closed, so pooled clients reconnect. */
  pointAt(port: number): void;
  stop(): void;
}

/** One relayed connection: what each side still has to receive. */
interface Relay {
  client: Socket<Relay>;
  upstream?: Socket<Relay>;
  toUpstream: Uint8Array[];
  toClient: Uint8Array[];
}

/** Writes what `queue` holds to `socket`, keeping what the socket did not take for its next drain. */
function flush(socket: Socket<Relay> | undefined, queue: Uint8Array[]): void {
  if (!socket) return;
  while (queue.length > 0) {
    const chunk = queue[0] as Uint8Array;
    const written = socket.write(chunk);
    if (written < chunk.byteLength) {
      queue[0] = chunk.subarray(Math.max(0, written));
      return;
    }
    queue.shift();
  }
}

export function startTcpSwitch(initialPort: number): TcpSwitch {
  let target = initialPort;
  const open = new Set<Socket<Relay>>();
  const listener = Bun.listen<Relay>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        const relay: Relay = { client, toUpstream: [], toClient: [] };
        client.data = relay;
        open.add(client);
        Bun.connect<Relay>({
          hostname: "127.0.0.1",
          port: target,
          data: relay,
          socket: {
            open(upstream) {
              relay.upstream = upstream;
              flush(upstream, relay.toUpstream);
            },
            data(_upstream, chunk) {
              relay.toClient.push(new Uint8Array(chunk));
              flush(relay.client, relay.toClient);
            },
            drain(upstream) {
              flush(upstream, relay.toUpstream);
            },
            close() {
              relay.client.end();
            },
          },
        }).catch(() => client.end());
      },
      data(client, chunk) {
        const relay = client.data;
        relay.toUpstream.push(new Uint8Array(chunk));
        flush(relay.upstream, relay.toUpstream);
      },
      drain(client) {
        flush(client, client.data.toClient);
      },
      close(client) {
        open.delete(client);
        client.data.upstream?.end();
      },
    },
  });
  return {
    port: listener.port,
    pointAt(port) {
      target = port;
      for (const client of open) client.end();
      open.clear();
    },
    stop() {
      for (const client of open) client.end();
      listener.stop(true);
    },
  };
}
