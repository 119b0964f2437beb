import { fileFingerprint, readRegularFile } from "../safe-file";

/** A file whose current content is wanted on every use, without re-reading it every time. */
export type WatchedFile = ReturnType<typeof watchFile>;

/** What a file that cannot even be stat'ed is remembered as, so it is reported once. */
const UNREADABLE = "(unreadable)";

interface Snapshot {
  readonly fingerprint: string;
  readonly content: string;
}

interface WatchOptions {
  readonly recheckMs: number;
  /** Throws when the content is unusable (an empty CA); such content is treated as unreadable. */
  readonly validate?: (content: string) => void;
  /** A change could not be used; called once per change, while the last good content stays in use. */
  readonly onError?: (error: unknown) => void;
}

/**
 * Re-reads `path` when its stat fingerprint changes, looking at most every
 * `recheckMs`; content that cannot be read or validated mid-rotation leaves
 * the last good one in use, and `onError` hears of it once.
 */
export function watchFile(path: string, options: WatchOptions) {
  let snapshot: Snapshot | undefined;
  let refusedFingerprint: string | undefined;
  let checkedAt = Number.NEGATIVE_INFINITY;

  const refresh = (previous: Snapshot | undefined): Snapshot => {
    let fingerprint: string | undefined;
    try {
      fingerprint = fileFingerprint(path);
      if (previous?.fingerprint === fingerprint) return previous;
      if (previous && fingerprint === refusedFingerprint) return previous;
      const content = readRegularFile(path);
      options.validate?.(content);
      return { fingerprint, content };
    } catch (error) {
      if (previous === undefined) throw error;
      const refused = fingerprint ?? UNREADABLE;
      if (refused !== refusedFingerprint) options.onError?.(error);
      refusedFingerprint = refused;
      return previous;
    }
  };

  return {
    path,
    /** The content as of the last change seen; throws when the file has never been readable. */
    read(): string {
      const now = performance.now();
      if (snapshot === undefined || now - checkedAt >= options.recheckMs) {
        checkedAt = now;
        snapshot = refresh(snapshot);
      }
      return snapshot.content;
    },
    /** Makes the next `read()` look at the file again, whatever the recheck interval says. */
    recheckNow(): void {
      checkedAt = Number.NEGATIVE_INFINITY;
    },
  };
}
