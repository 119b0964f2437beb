import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";

/** Certificates, keys, tokens and kubeconfigs are a few KiB; anything this big is not one. */
export const MAX_FILE_BYTES = 1024 * 1024;

class UnsafeFileError extends Error {
  override readonly name = "UnsafeFileError";
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isDirectory()) return "a directory";
  if (stats.isSocket()) return "a socket";
  return "not a regular file";
}

function checkRegular(path: string, stats: Stats, maxBytes: number): void {
  if (!stats.isFile()) {
    throw new UnsafeFileError(
      `${path} is ${kindOf(stats)}, not a regular file (symlinks are followed; the final target must be a regular file)`,
    );
  }
  if (stats.size > maxBytes) {
    throw new UnsafeFileError(`${path} is ${stats.size} bytes, over the ${maxBytes}-byte limit`);
  }
}

/**
 * Reads a small regular file without blocking on a FIFO or reading a device:
 * stat, a non-blocking open, fstat, and at most `maxBytes + 1` bytes, so a
 * file swapped or grown meanwhile is refused. Throws an UnsafeFileError
 * naming the path, or the system error.
 */
export function readRegularFile(path: string, maxBytes = MAX_FILE_BYTES): string {
  checkRegular(path, statSync(path), maxBytes);
  return readOpenedRegularFile(path, maxBytes);
}

/** readRegularFile's second half: opens without blocking and checks the descriptor. */
export function readOpenedRegularFile(path: string, maxBytes = MAX_FILE_BYTES): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const stats = fstatSync(fd);
    checkRegular(path, stats, maxBytes);
    const grewPast = () =>
      new UnsafeFileError(`${path} grew past the ${maxBytes}-byte limit while being read`);
    // Sized by the file, one byte over so growth shows; grown, up to the cap, if it grows.
    let buffer = Buffer.allocUnsafe(stats.size + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) throw grewPast();
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    if (length > maxBytes) throw grewPast();
    return buffer.toString("utf8", 0, length);
  } finally {
    closeSync(fd);
  }
}

/** A stream (stdin) read whole as text, refused unread past `maxBytes`: `< /dev/zero` ends at the cap. */
export async function readCappedStream(
  stream: ReadableStream<Uint8Array>,
  name: string,
  maxBytes: number,
): Promise<string> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new UnsafeFileError(`${name} is larger than the ${maxBytes}-byte limit`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, length).toString("utf8");
}

/** The file behind a path as it is now; the inode shows a Secret volume's `..data` swap when mtimes tie. */
export function fileFingerprint(path: string): string {
  const stats = statSync(path);
  return `${stats.ino}:${stats.mtimeMs}:${stats.size}`;
}
