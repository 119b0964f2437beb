import { createLargeReviewGate } from "../../src/http/body-budget";

/**
 * A server in its own process (run with `bun`, the port as argument) that
 * answers through the large-review gate the way the admission app does:
 * `/large` holds the event loop for BLOCK_MS, as decoding a large review
 * does, `/small` answers at once, `/events` lists the order they ran in.
 */

const BLOCK_MS = 150;
const LARGE_BYTES = 1024 * 1024;
const gate = createLargeReviewGate({ largeBytes: 256 * 1024, budgetBytes: LARGE_BYTES });
const events: string[] = [];

Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.argv[2]),
  fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/events") return Response.json(events);
    const large = path === "/large";
    return gate.run(large ? LARGE_BYTES : 100, async () => {
      await request.arrayBuffer();
      events.push(large ? "large" : "small");
      const until = performance.now() + (large ? BLOCK_MS : 0);
      while (performance.now() < until) {
        // a synchronous decode
      }
      return new Response("done");
    });
  },
});
