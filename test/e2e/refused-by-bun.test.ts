import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import tls from "node:tls";
import { startWebhook, type WebhookProcess } from "./harness";

/*
 * Requests Bun's HTTP parser refuses itself, before the app sees them: the
 * app cannot count or log them (Bun.serve calls no code of ours for them).
 * This pins what a client gets for each, as docs/reliability.md lists them,
 * and that they are indeed invisible to the metrics and the log: should Bun
 * start handing them to the app, this fails and the docs need a change.
 */

let webhook: WebhookProcess;
beforeAll(async () => {
  webhook = await startWebhook({ env: { WEBHOOK_LOG_LEVEL: "info" } });
});
afterAll(() => webhook.stop());

/** Writes `raw` on a fresh TLS connection; everything the server sent before closing it. */
function sendRaw(raw: string): Promise<string> {
  const { port } = new URL(webhook.admissionUrl);
  return new Promise((resolve) => {
    let received = "";
    const socket = tls.connect(
      { host: "127.0.0.1", port: Number(port), ca: webhook.ca.cert, servername: "localhost" },
      () => socket.write(raw),
    );
    socket.on("data", (data) => {
      received += data.toString("latin1");
    });
    socket.on("close", () => resolve(received));
    socket.on("error", () => resolve(received));
  });
}

const head = (requestLine: string, ...headers: string[]) =>
  `${requestLine}\r\n${["Host: webhook", ...headers].join("\r\n")}\r\n\r\n`;

const REFUSED: [string, string, string][] = [
  ["a lower-case method", head("post /mutate HTTP/1.1", "Content-Length: 0"), ""],
  ["an unknown method", head("FROB /mutate HTTP/1.1"), ""],
  ["a 64 KiB path", head(`POST /${"a".repeat(65_536)} HTTP/1.1`), "HTTP/1.1 431 "],
  [
    "a 100 KB header",
    head("POST /mutate HTTP/1.1", `X-Big: ${"a".repeat(100_000)}`),
    "HTTP/1.1 431 ",
  ],
  [
    "Content-Length and Transfer-Encoding together",
    head("POST /mutate HTTP/1.1", "Content-Length: 5", "Transfer-Encoding: chunked"),
    "HTTP/1.1 400 ",
  ],
  [
    "a Content-Length that is not a number",
    head("POST /mutate HTTP/1.1", "Content-Length: abc"),
    "HTTP/1.1 400 ",
  ],
  ["a header line without a colon", head("POST /mutate HTTP/1.1", "NoColon"), "HTTP/1.1 400 "],
  ["no Host header", "POST /mutate HTTP/1.1\r\nContent-Length: 0\r\n\r\n", "HTTP/1.1 400 "],
  ["an HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "HTTP/1.1 400 "],
];

describe("requests Bun refuses before the app sees them", () => {
  test.each(REFUSED)(
    "%s: answered by Bun alone, neither counted nor logged",
    async (_name, raw, answer) => {
      const metricsBefore = await webhook.metrics();
      const logLines = webhook.logs().length;
      const received = await sendRaw(raw);
      if (answer === "") expect(received).toBe("");
      else expect(received).toStartWith(answer);
      // Bun's own answer has no body and closes the connection.
      expect(received).not.toContain("{");
      const countedResponses = (text: string) =>
        text.split("\n").filter((line) => line.startsWith("cocoon_webhook_http_responses_total"));
      expect(countedResponses(await webhook.metrics())).toEqual(countedResponses(metricsBefore));
      expect(webhook.logs().slice(logLines)).toEqual([]);
    },
  );
});
