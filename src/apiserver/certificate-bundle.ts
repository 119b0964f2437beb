import { X509Certificate } from "node:crypto";

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * Throws unless `pem` is a bundle of one or more PEM certificates that all
 * parse. An empty or garbled CA would otherwise reach fetch as "no CA", and
 * fetch would then trust the system's default store instead of the cluster's.
 */
export function requireCertificateBundle(pem: string): void {
  if (pem.trim() === "") throw new Error("it is empty");
  const blocks = pem.match(PEM_CERTIFICATE);
  if (!blocks) throw new Error("it holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
  for (const [index, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      throw new Error(`its certificate #${index + 1} cannot be parsed`);
    }
  }
}
