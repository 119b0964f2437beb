import { createPrivateKey, X509Certificate } from "node:crypto";
import { errorText } from "../bounded-text";
import { readRegularFile } from "../safe-file";

export interface TlsPair {
  readonly cert: string;
  readonly key: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
}

/** TLS 1.2 suites offered: forward-secret AEAD only (TLS 1.3's all are). */
export const TLS12_CIPHERS = [
  "ECDHE-ECDSA-AES128-GCM-SHA256",
  "ECDHE-RSA-AES128-GCM-SHA256",
  "ECDHE-ECDSA-AES256-GCM-SHA384",
  "ECDHE-RSA-AES256-GCM-SHA384",
  "ECDHE-ECDSA-CHACHA20-POLY1305",
  "ECDHE-RSA-CHACHA20-POLY1305",
].join(":");

export function validityProblem(
  pair: TlsPair,
  subject = "the serving certificate",
  now = new Date(),
): string | undefined {
  if (now < pair.notBefore) {
    return `${subject} is not valid before ${pair.notBefore.toISOString()}`;
  }
  if (now > pair.notAfter) return `${subject} expired at ${pair.notAfter.toISOString()}`;
  return undefined;
}

class TlsPairError extends Error {
  override readonly name = "TlsPairError";
}

function readPem(path: string, what: string): string {
  try {
    return readRegularFile(path);
  } catch (error) {
    throw new TlsPairError(`cannot read ${what} ${path}: ${errorText(error)}`);
  }
}

/** A half-written or mismatched pair throws, so a rotation in progress is never served. */
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
  return {
    cert,
    key,
    notBefore: new Date(certificate.validFrom),
    notAfter: new Date(certificate.validTo),
  };
}

/** A rotation's pair: one outside its validity period is refused like a mismatched one. */
export function loadRotatedTlsPair(certPath: string, keyPath: string): TlsPair {
  const pair = loadTlsPair(certPath, keyPath);
  const problem = validityProblem(pair, `TLS certificate ${certPath}`);
  if (problem) {
    throw new TlsPairError(
      `${problem} (valid ${pair.notBefore.toISOString()} to ${pair.notAfter.toISOString()}); keep the certificate being served until a valid one is written`,
    );
  }
  return pair;
}
