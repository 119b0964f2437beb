import { fileFingerprint } from "../file-fingerprint";

/** What the certificate and key files are right now; taken before loading them. */
export const tlsFilesFingerprint = (paths: readonly string[]): string =>
  paths.map(fingerprintOrMissing).join("|");

function fingerprintOrMissing(path: string): string {
  try {
    return fileFingerprint(path);
  } catch {
    return "missing"; // mid-rotation; the next poll sees the file again
  }
}

/**
 * Polls `stat` on the certificate and key paths and calls `onChange` when
 * either differs from `loaded`, the fingerprint taken before the serving pair
 * was read (so a rotation during start-up is not missed). Polling rather than
 * inotify: cert-manager rotates through a Secret volume, whose atomic symlink
 * swap inotify on the file misses.
 */
export function watchTlsFiles(
  paths: readonly string[],
  loaded: string,
  intervalMs: number,
  onChange: () => void,
): () => void {
  let last = loaded;
  const timer = setInterval(() => {
    const current = tlsFilesFingerprint(paths);
    if (current === last) return;
    last = current;
    onChange();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
