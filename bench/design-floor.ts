/**
 * The design floor: the least a webhook built the way this one is can do per
 * request — a Hono app on Bun.serve whose routes run exactly the middleware
 * the product's review routes run (body limit, Content-Type, the envelope
 * through @hono/zod-validator: reviewValidation in
 * src/http/review-chain.ts) and then answer a fixed allow (uid echoed).
 * No observing middleware, no handler, no metrics, no logs: what the product
 * costs above this is what it adds on top of the framework.
 *
 * Run by bench/run.ts as its own process: `bun bench/design-floor.ts`, with
 * TLS_CERT, TLS_KEY and LISTEN_PORT in the environment.
 */
import { readFileSync } from "node:fs";
import { designFloorApp } from "./lib/design-floor-app";

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`design floor: ${name} is not set`);
  return value;
}

const app = designFloorApp();

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(required("LISTEN_PORT")),
  idleTimeout: 120,
  maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  tls: {
    cert: readFileSync(required("TLS_CERT"), "utf8"),
    key: readFileSync(required("TLS_KEY"), "utf8"),
  },
  fetch: (request) => app.fetch(request),
});

process.on("SIGTERM", () => {
  void server.stop(true).then(() => process.exit(0));
});
