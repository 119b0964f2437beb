import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync, statSync } from "node:fs";

export interface TlsPair {
  readonly cert: string;
  readonly key: string;
  readonly notAfter: Date;
}

export class TlsPairError extends Error {
  override readonly name = "TlsPairError";
}

function readPem(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new TlsPairError(`cannot read ${what} ${path}: ${(error as Error).message}`);
  }
}

/**
 * Reads and checks a certificate/key pair. A half-written or mismatched pair
 * throws, so a rotation in progress is never served.
 */
export function loadTlsPair(certPath: string, keyPath: string): TlsPair {
  const cert = readPem(certPath, "TLS certificate");
  const key = readPem(keyPath, "TLS key");
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (error) {
    throw new TlsPairError(
      `TLS certificate ${certPath} is not a PEM certificate: ${(error as Error).message}`,
    );
  }
  let matches: boolean;
  try {
    matches = certificate.checkPrivateKey(createPrivateKey(key));
  } catch (error) {
    throw new TlsPairError(
      `TLS key ${keyPath} is not a PEM private key: ${(error as Error).message}`,
    );
  }
  if (!matches) {
    throw new TlsPairError(`TLS key ${keyPath} does not match the certificate ${certPath}`);
  }
  return { cert, key, notAfter: new Date(certificate.validTo) };
}

/**
 * Identifies the file behind a path as it is now. `stat` follows symlinks,
 * so a Secret volume's `..data` swap changes the inode even when mtimes tie.
 */
export function fileFingerprint(path: string): string {
  try {
    const stats = statSync(path);
    return `${stats.ino}:${stats.mtimeMs}:${stats.size}`;
  } catch {
    return "missing";
  }
}
