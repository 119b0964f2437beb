import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface KeyPair {
  readonly certFile: string;
  readonly keyFile: string;
  readonly cert: string;
  readonly key: string;
}

export interface TestCa extends KeyPair {
  readonly dir: string;
  /** Issues a leaf certificate for localhost/127.0.0.1 (server and client auth). */
  issue(name: string, options?: { days?: number; commonName?: string }): KeyPair;
}

function openssl(args: string[], cwd: string): void {
  const result = Bun.spawnSync(["openssl", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) {
    throw new Error(`openssl ${args.join(" ")} failed: ${result.stderr.toString()}`);
  }
}

function pair(dir: string, name: string): KeyPair {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  return {
    certFile,
    keyFile,
    cert: readFileSync(certFile, "utf8"),
    key: readFileSync(keyFile, "utf8"),
  };
}

/** A private certificate authority in a fresh temporary folder, made with openssl. */
export function createTestCa(label = "cocoon-test-ca"): TestCa {
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  openssl(
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      "ca.key",
      "-out",
      "ca.crt",
      "-days",
      "2",
      "-subj",
      `/CN=${label}`,
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    ],
    dir,
  );
  const ca = pair(dir, "ca");
  let serial = 1;
  return {
    ...ca,
    dir,
    issue(name, options = {}) {
      const commonName = options.commonName ?? "localhost";
      openssl(
        [
          "req",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:prime256v1",
          "-nodes",
          "-keyout",
          `${name}.key`,
          "-out",
          `${name}.csr`,
          "-subj",
          `/CN=${commonName}`,
        ],
        dir,
      );
      writeFileSync(
        join(dir, `${name}.ext`),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n",
      );
      openssl(
        [
          "x509",
          "-req",
          "-in",
          `${name}.csr`,
          "-CA",
          "ca.crt",
          "-CAkey",
          "ca.key",
          "-set_serial",
          String(++serial),
          "-days",
          String(options.days ?? 1),
          "-extfile",
          `${name}.ext`,
          "-out",
          `${name}.crt`,
        ],
        dir,
      );
      return pair(dir, name);
    },
  };
}
