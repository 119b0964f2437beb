/**
 * The floor: the least any Bun TLS admission webhook can do per request —
 * read the body, JSON.parse it, answer a fixed allow review (echoing the uid).
 * No routing, no validation, no metrics, no logs.
 *
 * Run by bench/run.ts as its own process: `bun bench/floor.ts`, with
 * TLS_CERT, TLS_KEY and LISTEN_PORT in the environment.
 */
import { readFileSync } from "node:fs";

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`floor: ${name} is not set`);
  return value;
}

interface MinimalReview {
  readonly request?: { readonly uid?: unknown };
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(required("LISTEN_PORT")),
  idleTimeout: 120,
  maxRequestBodySize: 7 * 1024 * 1024,
  tls: {
    cert: readFileSync(required("TLS_CERT"), "utf8"),
    key: readFileSync(required("TLS_KEY"), "utf8"),
  },
  async fetch(request) {
    const review = JSON.parse(await request.text()) as MinimalReview;
    const uid = typeof review.request?.uid === "string" ? review.request.uid : "";
    return Response.json({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid, allowed: true },
    });
  },
});

process.on("SIGTERM", () => {
  void server.stop(true).then(() => process.exit(0));
});
