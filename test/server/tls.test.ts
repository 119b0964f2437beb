import { afterEach, describe, expect, test } from "bun:test";
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AdmissionListener } from "../../src/server/admission-listener";
import {
  loadSocketCalls,
  removeFromReuseportGroup,
  SteeringUnavailable,
} from "../../src/server/bun-tls-reload-workaround";
import { loadTlsPair } from "../../src/server/tls-pair";
import { tlsFilesFingerprint, watchTlsFiles } from "../../src/server/tls-watcher";
import { createTestCa } from "../support/certs";
import { eventually, waitUntil } from "../support/eventually";
import { ManualClock } from "../support/manual-clock";
import { listeningSocketsOnPort } from "../support/procfs";
import { serialOf, servedSerial } from "../support/secret-volume";

const ca = createTestCa("listener-unit-ca");
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe("watchTlsFiles", () => {
  test("a change made after the baseline was taken but before watching began is still seen", async () => {
    const first = ca.issue("watch-first");
    const certFile = join(ca.dir, "watched.crt");
    const keyFile = join(ca.dir, "watched.key");
    copyFileSync(first.certFile, certFile);
    copyFileSync(first.keyFile, keyFile);
    const loaded = tlsFilesFingerprint([certFile, keyFile]);

    const rotated = ca.issue("watch-rotated");
    writeFileSync(certFile, rotated.cert);
    writeFileSync(keyFile, rotated.key);

    let changes = 0;
    const clock = new ManualClock();
    cleanups.push(
      watchTlsFiles(
        [certFile, keyFile],
        loaded,
        { intervalMs: 10, settleMs: 20, maxDelayMs: 1000 },
        () => changes++,
        clock,
      ),
    );
    clock.advance(30); // seen at the first poll, settled 20 ms later
    expect(changes).toBe(1);
    clock.advance(100);
    expect(changes).toBe(1);
  });

  const watchedPair = () => {
    const certFile = join(ca.dir, `burst-${crypto.randomUUID()}.crt`);
    writeFileSync(certFile, "0");
    return [certFile, certFile] as const;
  };

  test("a burst of rewrites is one change, reported once the files are stable", async () => {
    const files = watchedPair();
    let changes = 0;
    const clock = new ManualClock();
    cleanups.push(
      watchTlsFiles(
        files,
        tlsFilesFingerprint(files),
        { intervalMs: 10, settleMs: 150, maxDelayMs: 10_000 },
        () => changes++,
        clock,
      ),
    );
    for (let rewrite = 1; rewrite <= 30; rewrite++) {
      writeFileSync(files[0], "x".repeat(rewrite));
      clock.advance(20); // rewrites closer together than settleMs, each seen by two polls
    }
    expect(changes).toBe(0);
    clock.advance(150);
    expect(changes).toBe(1);
    clock.advance(1000);
    expect(changes).toBe(1);
  });

  test("files that never settle are still applied, at most once per maxDelayMs", async () => {
    const files = watchedPair();
    let changes = 0;
    const clock = new ManualClock();
    cleanups.push(
      watchTlsFiles(
        files,
        tlsFilesFingerprint(files),
        { intervalMs: 10, settleMs: 10_000, maxDelayMs: 200 },
        () => changes++,
        clock,
      ),
    );
    for (let rewrite = 1; rewrite <= 50; rewrite++) {
      writeFileSync(files[0], "x".repeat(rewrite));
      clock.advance(20); // the files never settle for 1 s of rewrites
    }
    expect(changes).toBeGreaterThanOrEqual(1);
    expect(changes).toBeLessThanOrEqual(6);
  });
});

describe("removeFromReuseportGroup", () => {
  test("a removal moves the last member into the freed slot, as the kernel does", () => {
    const order = ["a", "b", "c", "d"];
    removeFromReuseportGroup(order, "b");
    expect(order).toEqual(["a", "d", "c"]);
    expect(order.indexOf("d")).toBe(1);
    removeFromReuseportGroup(order, "c");
    expect(order).toEqual(["a", "d"]);
    removeFromReuseportGroup(order, "a");
    expect(order).toEqual(["d"]);
    expect(order.indexOf("d")).toBe(0);
    removeFromReuseportGroup(order, "absent");
    order.push("e");
    expect(order).toEqual(["d", "e"]);
  });
});

describe("SocketCalls.listeningSockets", () => {
  test.skipIf(process.platform !== "linux")(
    "finds the same listening sockets of this process as /proc/net/tcp lists, and only those on the port",
    async () => {
      const handler = () => new Response("ok");
      const servers = [
        Bun.serve({ hostname: "127.0.0.1", port: 0, reusePort: true, fetch: handler }),
      ];
      const port = servers[0]?.port ?? 0;
      servers.push(Bun.serve({ hostname: "127.0.0.1", port, reusePort: true, fetch: handler }));
      const other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handler });
      // An accepted connection on the port is a socket on it too, but not a listening one.
      const client = await Bun.connect({
        hostname: "127.0.0.1",
        port,
        socket: { data() {} },
      });
      try {
        const found = loadSocketCalls().listeningSockets(port);
        const fromProc = listeningSocketsOnPort(port);
        expect(found).toHaveLength(2);
        expect(found.map(({ fd, inode }) => ({ fd, inode }))).toEqual(
          fromProc.map(({ fd, inode }) => ({ fd, inode })),
        );
        expect(new Set(found.map((socket) => socket.group)).size).toBe(1);
        expect(loadSocketCalls().listeningSockets(other.port ?? 0)).toHaveLength(1);
      } finally {
        client.end();
        for (const server of [...servers, other]) await server.stop(true);
      }
    },
  );
});

describe("AdmissionListener", () => {
  test("a listener started by a rotation during shutdown drains too", async () => {
    const first = ca.issue("drain-first");
    const listener = new AdmissionListener(
      {
        address: { hostname: "127.0.0.1", port: 0 },
        fetch: () => new Response("ok"),
      },
      loadTlsPair(first.certFile, first.keyFile),
    );
    cleanups.push(() => listener.stop(100));
    listener.beginDrain();
    const next = ca.issue("drain-next");
    listener.rotate(loadTlsPair(next.certFile, next.keyFile));

    const seen = new Set<string | null>();
    for (let attempt = 0; attempt < 20; attempt++) {
      const response = await fetch(`https://localhost:${listener.port}/`, {
        tls: { ca: ca.cert },
        keepalive: false,
      });
      await response.text();
      seen.add(response.headers.get("connection"));
    }
    expect([...seen]).toEqual(["close"]);
  });
});

describe("AdmissionListener rotation", () => {
  const served = (port: number) => servedSerial(`https://localhost:${port}`, ca.cert);
  const start = (options: Partial<ConstructorParameters<typeof AdmissionListener>[0]> = {}) => {
    const first = ca.issue(`rotation-first-${crypto.randomUUID()}`);
    const listener = new AdmissionListener(
      {
        address: { hostname: "127.0.0.1", port: 0 },
        fetch: () => new Response("ok"),
        ...options,
      },
      loadTlsPair(first.certFile, first.keyFile),
    );
    cleanups.push(() => listener.stop(100));
    return listener;
  };
  const pairs = (count: number) =>
    Array.from({ length: count }, (_, i) => {
      const issued = ca.issue(`rotation-${i}-${crypto.randomUUID()}`);
      return { issued, pair: loadTlsPair(issued.certFile, issued.keyFile) };
    });

  test.skipIf(process.platform !== "linux")(
    "steers new connections to the newest listener, and never holds more than two listening sockets",
    async () => {
      const listener = start();
      expect(listener.steering).toBeTrue();
      const upcoming = pairs(6);
      const counts: number[] = [];
      for (const { issued, pair } of upcoming) {
        listener.rotate(pair);
        counts.push(listeningSocketsOnPort(listener.port).length);
        // Every fresh handshake right after the rotation gets the new certificate.
        const seen = await Promise.all(Array.from({ length: 5 }, () => served(listener.port)));
        expect(new Set(seen)).toEqual(new Set([serialOf(issued)]));
        // A second sample, once those handshakes gave the retired listener turns of the loop.
        counts.push(listeningSocketsOnPort(listener.port).length);
      }
      expect(Math.max(...counts)).toBeLessThanOrEqual(2);
      expect(listener.steering).toBeTrue();
    },
  );

  test("falls back without steering when it is unavailable: reported once, still serving, still two listeners at most", async () => {
    const problems: SteeringUnavailable[] = [];
    const listener = start({
      socketCalls: () => {
        throw new SteeringUnavailable("unsupported", "no libc here");
      },
      onSteeringUnavailable: (problem) => problems.push(problem),
    });
    expect(listener.steering).toBeFalse();
    const counts: number[] = [];
    const upcoming = pairs(4);
    for (const { pair } of upcoming) {
      listener.rotate(pair);
      counts.push(listeningSocketsOnPort(listener.port).length);
    }
    // Without steering, the listener it replaced answers for 1 s; the sockets are sampled meanwhile.
    await waitUntil(() => {
      counts.push(listeningSocketsOnPort(listener.port).length);
      return listeningSocketsOnPort(listener.port).length === 1;
    }, 5000);
    expect(listeningSocketsOnPort(listener.port)).toHaveLength(1);
    expect(Math.max(...counts)).toBeLessThanOrEqual(2);
    const last = upcoming.at(-1)?.issued;
    if (!last) throw new Error("no pair");
    expect(await served(listener.port)).toBe(serialOf(last));
    expect(problems.map((problem) => problem.reason)).toEqual(["unsupported"]);
  });

  test.skipIf(process.platform !== "linux")(
    "a socket call refused mid-run turns steering off once and rotation goes on",
    async () => {
      const problems: SteeringUnavailable[] = [];
      let calls = 0;
      const listener = start({
        socketCalls: () => ({
          listeningSockets: (port) => listeningSocketsOnPort(port),
          steerGroupTo: () => {
            calls++;
            if (calls > 1) throw new SteeringUnavailable("refused", "setsockopt refused");
          },
          acceptQueueLength: () => 0,
          closeListeningSocket: () => {},
        }),
        onSteeringUnavailable: (problem) => problems.push(problem),
      });
      expect(listener.steering).toBeTrue();
      const [next, after] = pairs(2);
      if (!next || !after) throw new Error("no pair");
      listener.rotate(next.pair);
      expect(listener.steering).toBeFalse();
      listener.rotate(after.pair);
      expect(listeningSocketsOnPort(listener.port).length).toBeLessThanOrEqual(2);
      // Without steering, the listener it replaced answers for 1 s.
      await waitUntil(() => listeningSocketsOnPort(listener.port).length === 1, 5000);
      expect(listeningSocketsOnPort(listener.port)).toHaveLength(1);
      expect(await served(listener.port)).toBe(serialOf(after.issued));
      expect(problems.map((problem) => problem.reason)).toEqual(["refused"]);
    },
  );

  test.skipIf(process.platform !== "linux")(
    "a rotation waits while the retired listener still has a connection queued, then applies the newest pair",
    async () => {
      let queued = 3;
      const failures: unknown[] = [];
      const listener = start({
        socketCalls: () => {
          const real = loadSocketCalls();
          return { ...real, acceptQueueLength: () => (queued > 0 ? queued-- : 0) };
        },
        onDeferredRotationFailed: (error) => failures.push(error),
      });
      const [second, third, fourth] = pairs(3);
      if (!second || !third || !fourth) throw new Error("no pair");
      listener.rotate(second.pair);
      listener.rotate(third.pair); // deferred: the retired listener reports a queued connection
      listener.rotate(fourth.pair); // replaces the deferred pair
      expect(listeningSocketsOnPort(listener.port)).toHaveLength(2);
      // Applied once the queue has drained: the newest pair is served.
      await eventually(
        () => served(listener.port),
        (serial) => serial === serialOf(fourth.issued),
      );
      expect(listeningSocketsOnPort(listener.port).length).toBeLessThanOrEqual(2);
      expect(queued).toBe(0);
      const seen = await Promise.all(Array.from({ length: 5 }, () => served(listener.port)));
      expect(new Set(seen)).toEqual(new Set([serialOf(fourth.issued)]));
      expect(failures).toEqual([]);
      expect(listener.steering).toBeTrue();
    },
  );
});
