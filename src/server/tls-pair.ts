import { createPrivateKey, X509Certificate } from "node:crypto";
import { errorText } from "../errors";
import { readRegularFile } from "../safe-file";

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
    return readRegularFile(path);
  } catch (error) {
    throw new TlsPairError(`cannot read ${what} ${path}: ${errorText(error)}`);
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
      `TLS certificate ${certPath} is not a PEM certificate: ${errorText(error)}`,
    );
  }
  let matches: boolean;
  try {
    matches = certificate.checkPrivateKey(createPrivateKey(key));
  } catch (error) {
    throw new TlsPairError(`TLS key ${keyPath} is not a PEM private key: ${errorText(error)}`);
  }
  if (!matches) {
    throw new TlsPairError(`TLS key ${keyPath} does not match the certificate ${certPath}`);
  }
  return { cert, key, notAfter: new Date(certificate.validTo) };
}
