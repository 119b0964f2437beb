import { X509Certificate } from "node:crypto";
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";

export interface PemPair {
  readonly cert: string;
  readonly key: string;
}

/**
 * A Secret volume's layout as the kubelet writes it: `tls.crt` and `tls.key`
 * are symlinks through `..data` to a timestamped directory.
 */
export class SecretVolume {
  readonly dir = mkdtempSync(join(tmpdir(), "cocoon-secret-"));
  readonly certFile = join(this.dir, "tls.crt");
  readonly keyFile = join(this.dir, "tls.key");
  #generation = 0;

  constructor(pair: PemPair) {
    this.publish(pair);
    symlinkSync("..data/tls.crt", this.certFile);
    symlinkSync("..data/tls.key", this.keyFile);
  }

  /** What the kubelet does: new directory, then an atomic rename of the `..data` link. */
  publish(pair: PemPair): void {
    const version = `..${Date.now()}_${++this.#generation}`;
    mkdirSync(join(this.dir, version));
    writeFileSync(join(this.dir, version, "tls.crt"), pair.cert);
    writeFileSync(join(this.dir, version, "tls.key"), pair.key);
    symlinkSync(version, join(this.dir, "..data_tmp"));
    renameSync(join(this.dir, "..data_tmp"), join(this.dir, "..data"));
  }

  /** A plain in-place rewrite of both files (what a hand-rolled rotation script does). */
  rewriteInPlace(pair: PemPair): void {
    writeFileSync(join(this.dir, "..data", "tls.key"), pair.key);
    writeFileSync(join(this.dir, "..data", "tls.crt"), pair.cert);
  }

  /** `pair` as served from this volume's paths: what startWebhook's `serving` takes. */
  servingOf(pair: PemPair): PemPair & { readonly certFile: string; readonly keyFile: string } {
    return { cert: pair.cert, key: pair.key, certFile: this.certFile, keyFile: this.keyFile };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The serial number of a certificate in PEM. */
export const serialOf = (pair: { cert: string }): string =>
  new X509Certificate(pair.cert).serialNumber;

/** The certificate a fresh TLS handshake is served, by serial number. */
export function servedSerial(
  url: string,
  ca: string,
  options: tls.ConnectionOptions = {},
): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = tls.connect(
      { host: hostname, port: Number(port), ca, servername: hostname, ...options },
      () => {
        resolve(socket.getPeerCertificate().serialNumber);
        socket.end();
      },
    );
    socket.setTimeout(5000, () => socket.destroy(new Error("TLS handshake timed out")));
    socket.on("error", reject);
  });
}
