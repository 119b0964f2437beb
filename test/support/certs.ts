import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface KeyPair {
  readonly certFile: string;
  readonly keyFile: string;
  readonly cert: string;
  readonly key: string;
}

export interface IssueOptions {
  readonly days?: number;
  readonly commonName?: string;
  /** The subject's O: Kubernetes reads it as the client certificate's group, e.g. system:masters. */
  readonly organization?: string;
  /** An exact validity window instead of `days` from now (expired or not-yet-valid certificates). */
  readonly validity?: { readonly notBefore: Date; readonly notAfter: Date };
  /** prime256v1 by default; RSA to offer static-RSA key exchange suites. */
  readonly keyType?: "ec" | "rsa";
  /** DNS names besides localhost, e.g. a Service's `name.namespace.svc`. */
  readonly dnsNames?: readonly string[];
}

export interface TestCa extends KeyPair {
  readonly dir: string;
  /** Issues a leaf certificate for localhost/127.0.0.1 and `dnsNames` (server and client auth). */
  issue(name: string, options?: IssueOptions): KeyPair;
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
      const key =
        options.keyType === "rsa"
          ? ["rsa:2048"]
          : ["ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];
      openssl(
        [
          "req",
          "-newkey",
          ...key,
          "-nodes",
          "-keyout",
          `${name}.key`,
          "-out",
          `${name}.csr`,
          "-subj",
          `${options.organization ? `/O=${options.organization}` : ""}/CN=${commonName}`,
        ],
        dir,
      );
      writeFileSync(
        join(dir, `${name}.ext`),
        `subjectAltName=${["localhost", ...(options.dnsNames ?? [])].map((dns) => `DNS:${dns}`).join(",")},IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n`,
      );
      if (options.validity) {
        signWithin(dir, name, ++serial, options.validity);
        return pair(dir, name);
      }
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

/** `openssl x509 -req` of OpenSSL 3.0 only takes `-days`; `openssl ca` takes exact dates. */
function signWithin(
  dir: string,
  name: string,
  serial: number,
  validity: { notBefore: Date; notAfter: Date },
): void {
  const config = join(dir, `${name}.ca.cnf`);
  writeFileSync(join(dir, `${name}.index`), "");
  writeFileSync(join(dir, `${name}.serial`), serial.toString(16).padStart(4, "0"));
  writeFileSync(
    config,
    [
      "[ca]",
      "default_ca = test",
      "[test]",
      `database = ${name}.index`,
      `serial = ${name}.serial`,
      "new_certs_dir = .",
      "default_md = sha256",
      "policy = anything",
      "unique_subject = no",
      "[anything]",
      "commonName = supplied",
    ].join("\n"),
  );
  const asn1Time = (date: Date) => `${date.toISOString().replace(/[-:T]/g, "").slice(0, 14)}Z`;
  openssl(
    [
      "ca",
      "-batch",
      "-config",
      config,
      "-cert",
      "ca.crt",
      "-keyfile",
      "ca.key",
      "-in",
      `${name}.csr`,
      "-out",
      `${name}.crt`,
      "-startdate",
      asn1Time(validity.notBefore),
      "-enddate",
      asn1Time(validity.notAfter),
      "-extfile",
      `${name}.ext`,
      "-notext",
    ],
    dir,
  );
}
