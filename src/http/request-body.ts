import type { Context, MiddlewareHandler } from "hono";
import { cutShort, errorText } from "../bounded-text";
import { countContainers, MAX_DECODED_CONTAINERS } from "../json/containers";
import { LARGE_REVIEW_BYTES, type LargeReviewGate, type ReviewTurn } from "./body-budget";
import { Rejection } from "./rejection";

export interface RequestBodyOptions {
  /** MAX_REQUEST_BYTES and BODY_READ_TIMEOUT. */
  readonly maxBytes: number;
  readonly readTimeoutMs: number;
}

/** The connection is closed after these answers: the rest of its body is never read. */
const CLOSE = { headers: { Connection: "close" } } as const;

const tooLarge = (maxBytes: number) =>
  new Rejection(
    413,
    `request body is larger than MAX_REQUEST_BYTES (${maxBytes} bytes); an AdmissionReview is far smaller`,
    CLOSE,
  );

/** Registered first, so an oversized body is a 413 whatever else is wrong with it, and is never read. */
export function refuseDeclaredOversize(maxBytes: number): MiddlewareHandler {
  return (c, next) => {
    const declared = declaredLength(c);
    if (declared !== undefined && declared > maxBytes) throw tooLarge(maxBytes);
    return next();
  };
}

/**
 * The body, read in its turn of the budget and within the deadline (408),
 * its bytes held until the review is answered. A large body, read chunk by
 * chunk, is handed on in a new Request, as Hono's own bodyLimit does.
 */
export function readReviewBody(
  gate: LargeReviewGate,
  { maxBytes, readTimeoutMs }: RequestBodyOptions,
): MiddlewareHandler {
  return (c, next) => {
    const declared = declaredLength(c);
    return gate.run(declared, async (turn) => {
      if (declared !== undefined && declared < LARGE_REVIEW_BYTES) {
        // HonoRequest keeps the text it read, and the validator's c.req.json() parses that.
        await withinDeadline(c.req.text(), readTimeoutMs);
      } else {
        const body = await readLargeBody(c.req.raw, { declared, maxBytes, readTimeoutMs, turn });
        c.req.raw = new Request(c.req.raw, { body });
      }
      await next();
    });
  };
}

/** The body's Content-Length; undefined for a chunked body, whose length only reading tells. */
function declaredLength(c: Context): number | undefined {
  const headers = c.req.raw.headers;
  const declared = headers.get("content-length");
  if (declared === null || headers.has("transfer-encoding")) return undefined;
  return Number.parseInt(declared, 10);
}

const timedOut = (ms: number) =>
  new Rejection(
    408,
    `request body did not arrive within BODY_READ_TIMEOUT (${ms} ms); the connection is closed`,
    CLOSE,
  );

const unreadable = (error: unknown) =>
  new Rejection(400, `request body could not be read: ${cutShort(errorText(error))}`, CLOSE);

/** `reading`, or a 408 once `ms` pass first; a failed read is a 400. */
function withinDeadline<T>(reading: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(timedOut(ms)), ms);
    reading.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(unreadable(error));
      },
    );
  });
}

interface LargeRead {
  readonly declared: number | undefined;
  readonly maxBytes: number;
  readonly readTimeoutMs: number;
  readonly turn: ReviewTurn;
}

/**
 * A chunked body grows its hold on the budget before each chunk is kept and
 * is refused the moment it passes `maxBytes`; the deadline ends the read, a
 * growth still waiting included. Its containers are counted before decoding.
 */
async function readLargeBody(
  request: Request,
  { declared, maxBytes, readTimeoutMs, turn }: LargeRead,
): Promise<Uint8Array> {
  const reader = request.body?.getReader();
  if (!reader) return new Uint8Array();
  let expired = false;
  let wakeGrowth: (() => void) | undefined;
  const timer = setTimeout(() => {
    expired = true;
    turn.abandon();
    wakeGrowth?.();
    reader.cancel().catch(() => {});
  }, readTimeoutMs);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (expired) throw timedOut(readTimeoutMs);
        throw unreadable(error);
      }
      if (expired) throw timedOut(readTimeoutMs);
      if (chunk.done) break;
      size += chunk.value.byteLength;
      if (size > maxBytes) throw tooLarge(maxBytes);
      if (declared === undefined) {
        const growth = turn.grow(size);
        if (growth) {
          await new Promise<void>((resolve) => {
            wakeGrowth = resolve;
            void growth.then(resolve);
          });
          wakeGrowth = undefined;
          if (expired) throw timedOut(readTimeoutMs);
        }
      }
      chunks.push(chunk.value);
    }
  } finally {
    clearTimeout(timer);
    turn.abandon();
  }
  const body = chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, size);
  chunks.length = 0;
  // Each container opens with a byte of its own, so a body no longer than the cap cannot pass
  // it: the ≈1 MB reviews skip a scan that costs as much as their decoding.
  if (body.byteLength > MAX_DECODED_CONTAINERS && countContainers(body) > MAX_DECODED_CONTAINERS) {
    throw new Rejection(
      413,
      `request body holds more than ${MAX_DECODED_CONTAINERS} JSON objects and arrays, more than one ` +
        "review may decode; no object the apiserver stores is shaped like that",
    );
  }
  return body;
}
