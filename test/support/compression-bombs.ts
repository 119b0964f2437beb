import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createGzip } from "node:zlib";

/*
 * Compressed answers that decode to far more than they weigh: JSON made of
 * whitespace and a closing `{}`. A client that decodes before it counts pays
 * the decoded size in memory.
 */

/** What the brotli fixture decodes to: 1 GiB of spaces, then `{}`. */
export const BROTLI_BOMB_DECODED_BYTES = 1024 * 1024 * 1024 + 2;

/**
 * 814 bytes on the wire. Made once (compressing 1 GiB takes seconds) with
 * node:zlib's createBrotliCompress at quality 5, window 24, fed 1 MiB of
 * spaces 1024 times and then `{}`.
 */
export function brotliBomb(): Uint8Array {
  return readFileSync(join(import.meta.dir, "../fixtures/compression-bombs/spaces-1gib.json.br"));
}

/** `decodedBytes` of spaces then `{}`, gzip level 9 (about 1000:1), compressed 1 MiB at a time. */
export async function gzipBomb(decodedBytes: number): Promise<Uint8Array> {
  const compressor = createGzip({ level: 9 });
  const compressed: Buffer[] = [];
  compressor.on("data", (chunk: Buffer) => compressed.push(chunk));
  const ended = new Promise((resolve) => compressor.on("end", resolve));
  const step = Buffer.alloc(1024 * 1024, " ");
  for (let written = 0; written < decodedBytes; written += step.length) {
    const part = step.subarray(0, Math.min(step.length, decodedBytes - written));
    if (!compressor.write(part)) await new Promise((resolve) => compressor.once("drain", resolve));
  }
  compressor.end("{}");
  await ended;
  return Buffer.concat(compressed);
}
