import { fileFingerprint, readRegularFile } from "../safe-file";

/** A file whose current content is wanted on every use, without re-reading it every time. */
export interface WatchedFile {
  readonly path: string;
  /** The content as of the last change seen; throws when the file has never been readable. */
  read(): string;
  /** Makes the next `read()` look at the file again, whatever the recheck interval says. */
  recheckNow(): void;
}

interface Snapshot {
  readonly fingerprint: string;
  readonly content: string;
}

/**
 * Re-reads `path` when its stat fingerprint changes, looking at most every
 * `recheckMs`. The fingerprint includes the inode because kubelet rotates
 * projected tokens and Secret volumes by swapping a symlink, and `stat`
 * follows it. When the file cannot be read mid-rotation, the last good
 * content stays in use and `onError` hears about it.
 */
export function watchFile(
  path: string,
  options: { recheckMs: number; onError?: (error: unknown) => void },
): WatchedFile {
  let snapshot: Snapshot | undefined;
  let checkedAt = Number.NEGATIVE_INFINITY;

  const refresh = (previous: Snapshot | undefined): Snapshot => {
    try {
      const fingerprint = fileFingerprint(path);
      if (previous?.fingerprint === fingerprint) return previous;
      return { fingerprint, content: readRegularFile(path) };
    } catch (error) {
      if (previous === undefined) throw error;
      options.onError?.(error);
      return previous;
    }
  };

  return {
    path,
    read() {
      const now = performance.now();
      if (snapshot === undefined || now - checkedAt >= options.recheckMs) {
        checkedAt = now;
        snapshot = refresh(snapshot);
      }
      return snapshot.content;
    },
    recheckNow() {
      checkedAt = Number.NEGATIVE_INFINITY;
    },
  };
}
