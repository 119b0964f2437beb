import { statSync } from "node:fs";

/**
 * Identifies the file behind a path as it is now. `stat` follows symlinks, so
 * a Secret volume's `..data` swap changes the inode even when mtimes tie.
 * Throws when the path cannot be stat'ed.
 */
export function fileFingerprint(path: string): string {
  const stats = statSync(path);
  return `${stats.ino}:${stats.mtimeMs}:${stats.size}`;
}
