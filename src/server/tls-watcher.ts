import { fileFingerprint } from "./tls-pair";

/**
 * Polls `stat` on the certificate and key paths and calls `onChange` when
 * either changes. Polling rather than inotify: cert-manager rotates through
 * a Secret volume, whose atomic symlink swap inotify on the file misses.
 */
export function watchTlsFiles(
  paths: readonly string[],
  intervalMs: number,
  onChange: () => void,
): () => void {
  const fingerprint = () => paths.map(fileFingerprint).join("|");
  let last = fingerprint();
  const timer = setInterval(() => {
    const current = fingerprint();
    if (current === last) return;
    last = current;
    onChange();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
