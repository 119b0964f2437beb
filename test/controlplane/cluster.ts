import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { createTestCa, type KeyPair, type TestCa } from "../support/certs";
import { freePort } from "../support/free-port";
import { base64, kubeconfigYaml } from "../support/kubeconfig";
import {
  isDryRun,
  refuseServiceClientConfig,
  refuseServiceClientConfigInKubectl,
} from "./client-config-guard";
import { installLocalOnlyPolicy } from "./local-only-policy";

/**
 * A real control plane for tests, the way envtest runs one: etcd and
 * kube-apiserver as local processes on loopback, throw-away certificates,
 * RBAC authorization, a client certificate in system:masters for the tests,
 * and a service-account issuer so the TokenRequest API works. No scheduler
 * and no controller-manager: tests create Nodes and Bindings themselves, and
 * nothing is garbage collected. Every write through `request` and `kubectl`
 * is refused before it is sent when it names a Service in a clientConfig
 * (client-config-guard.ts): the apiserver must never dial off this machine.
 * Behind that, the apiserver refuses to store one from any client
 * (local-only-policy.ts).
 */

/** Who a request is sent as: the admin, or someone the admin impersonates. */
export interface Identity {
  readonly user: string;
  readonly groups?: readonly string[];
}

export interface ApiAnswer {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: apiserver JSON, read field by field in the tests
  readonly body: any;
  /** The `Warning` headers, as `kubectl` prints them. */
  readonly warnings: readonly string[];
}

export interface RequestOptions {
  readonly body?: unknown;
  readonly as?: Identity;
  /** `application/json` unless set: `application/merge-patch+json`, `application/json-patch+json`, … */
  readonly contentType?: string;
}

export interface CommandResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ControlPlane {
  /** https://127.0.0.1:PORT */
  readonly url: string;
  /** Signs the apiserver's serving certificate and every client certificate it accepts. */
  readonly ca: TestCa;
  /** A kubeconfig with the admin's client certificate (group system:masters). */
  readonly adminKubeconfig: string;
  /** Scratch space that is removed with the control plane. */
  readonly dir: string;
  /** The audit log's events so far: level Metadata for every write, written before each answer (blocking mode). */
  auditEvents(): AuditEvent[];
  /** Sends a REST request as the admin, or as `options.as` through impersonation. */
  request(method: string, path: string, options?: RequestOptions): Promise<ApiAnswer>;
  /** Runs kubectl against this control plane, as the admin or as `as`. */
  kubectl(
    args: readonly string[],
    options?: { as?: Identity; stdin?: string },
  ): Promise<CommandResult>;
  /** Stops the apiserver and etcd and removes every file they wrote. */
  stop(): Promise<void>;
}

/** The fields of an audit.k8s.io/v1 Event the tests read. */
export interface AuditEvent {
  readonly verb: string;
  readonly user: { readonly username: string };
  readonly objectRef?: {
    readonly resource?: string;
    readonly namespace?: string;
    readonly name?: string;
  };
  readonly responseStatus?: { readonly code?: number };
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface ControlPlaneBinaries {
  readonly kubeApiserver: string;
  readonly etcd: string;
  readonly kubectl: string;
}

/** How long the apiserver may take to answer /readyz with every post-start hook done. */
const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;

/** Every child still running, killed when the test process exits however it exits. */
const running = new Set<Subprocess>();
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

export async function startControlPlane(binaries: ControlPlaneBinaries): Promise<ControlPlane> {
  const dir = mkdtempSync(join(tmpdir(), "cocoon-controlplane-"));
  const children: Subprocess[] = [];
  const stop = async () => {
    await Promise.all(children.reverse().map((child) => terminate(child)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ca = createTestCa("controlplane-ca");
    const serving = ca.issue("apiserver");
    const admin = ca.issue("admin", {
      commonName: "cocoon-test-admin",
      organization: "system:masters",
    });
    const serviceAccountKey = writeServiceAccountKey(dir);
    const auditPolicy = join(dir, "audit-policy.yaml");
    writeFileSync(auditPolicy, AUDIT_POLICY);
    const auditLogPath = join(dir, "audit.log");

    const etcdPort = freePort();
    const etcdPeerUrl = `http://127.0.0.1:${freePort()}`;
    children.push(
      spawnLogged(dir, "etcd", [
        binaries.etcd,
        "--name=test",
        `--data-dir=${join(dir, "etcd")}`,
        `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
        `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
        `--listen-peer-urls=${etcdPeerUrl}`,
        `--initial-advertise-peer-urls=${etcdPeerUrl}`,
        `--initial-cluster=test=${etcdPeerUrl}`,
        "--unsafe-no-fsync",
        "--log-level=warn",
      ]),
    );
    await waitFor("etcd", children[0], dir, async () => {
      const health = await fetch(`http://127.0.0.1:${etcdPort}/health`);
      return health.ok;
    });

    const port = freePort();
    const url = `https://127.0.0.1:${port}`;
    children.push(
      spawnLogged(dir, "kube-apiserver", [
        binaries.kubeApiserver,
        `--etcd-servers=http://127.0.0.1:${etcdPort}`,
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        `--secure-port=${port}`,
        `--cert-dir=${join(dir, "apiserver-certs")}`,
        `--tls-cert-file=${serving.certFile}`,
        `--tls-private-key-file=${serving.keyFile}`,
        `--client-ca-file=${ca.certFile}`,
        "--service-cluster-ip-range=10.0.0.0/24",
        `--service-account-issuer=${url}`,
        `--service-account-key-file=${serviceAccountKey.publicKeyFile}`,
        `--service-account-signing-key-file=${serviceAccountKey.keyFile}`,
        "--authorization-mode=RBAC",
        "--allow-privileged=true",
        // No controller-manager creates the default ServiceAccount in each namespace.
        "--disable-admission-plugins=ServiceAccount",
        `--audit-policy-file=${auditPolicy}`,
        `--audit-log-path=${auditLogPath}`,
        "--audit-log-mode=blocking",
      ]),
    );

    const adminKubeconfig = join(dir, "admin.kubeconfig");
    writeFileSync(
      adminKubeconfig,
      kubeconfigYaml(url, ca.cert, {
        "client-certificate-data": base64(admin.cert),
        "client-key-data": base64(admin.key),
      }),
    );
    const request = requester(url, ca, admin);
    await waitFor(
      "kube-apiserver",
      children[1],
      dir,
      async () => (await request("GET", "/readyz")).status === 200,
    );
    // Its probe names a Service in a configuration that no request can match.
    await installLocalOnlyPolicy(requester(url, ca, admin, { guarded: false }));

    return {
      url,
      ca,
      adminKubeconfig,
      dir,
      auditEvents: () =>
        readFileSync(auditLogPath, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as AuditEvent),
      request,
      kubectl: async (args, options = {}) => {
        const run = (command: readonly string[], stdin?: string) =>
          kubectl(
            binaries.kubectl,
            [`--kubeconfig=${adminKubeconfig}`, `--cache-dir=${join(dir, "kubectl-cache")}`],
            command,
            stdin === undefined ? { as: options.as } : { as: options.as, stdin },
          );
        await refuseServiceClientConfigInKubectl(args, options.stdin, async (directory) => {
          const rendered = await run(["kustomize", directory]);
          if (rendered.exitCode !== 0) throw new Error(`kubectl kustomize: ${rendered.stderr}`);
          return rendered.stdout;
        });
        return run(args, options.stdin);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Metadata for every write: enough to read the admission webhooks' audit annotations. */
const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    verbs: [get, list, watch]
  - level: Metadata
`;

function writeServiceAccountKey(dir: string): { keyFile: string; publicKeyFile: string } {
  const keyFile = join(dir, "service-account.key");
  const publicKeyFile = join(dir, "service-account.pub");
  for (const args of [
    ["genrsa", "-out", keyFile, "2048"],
    ["rsa", "-in", keyFile, "-pubout", "-out", publicKeyFile],
  ]) {
    const result = Bun.spawnSync(["openssl", ...args], { stdout: "pipe", stderr: "pipe" });
    if (result.exitCode !== 0) throw new Error(`openssl ${args[0]}: ${result.stderr}`);
  }
  return { keyFile, publicKeyFile };
}

/** The environment of every child: no proxy settings from the caller reach loopback calls. */
const CHILD_ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: tmpdir() };

function spawnLogged(dir: string, name: string, command: string[]): Subprocess {
  const log = Bun.file(join(dir, `${name}.log`));
  const child = Bun.spawn(command, { env: CHILD_ENV, stdin: "ignore", stdout: log, stderr: log });
  running.add(child);
  child.exited.then(() => running.delete(child));
  return child;
}

async function terminate(child: Subprocess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const stopped = await Promise.race([
    child.exited.then(() => true),
    Bun.sleep(STOP_GRACE_MS).then(() => false),
  ]);
  if (!stopped) {
    child.kill("SIGKILL");
    await child.exited;
  }
}

/** Polls `ready` until it holds; fails with the tail of the process's log when it exits or times out. */
async function waitFor(
  name: string,
  child: Subprocess | undefined,
  dir: string,
  ready: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child?.exitCode !== null) break;
    if (await ready().catch(() => false)) return;
    await Bun.sleep(100); // the poll interval
  }
  const logFile = join(dir, `${name}.log`);
  const tail = existsSync(logFile)
    ? readFileSync(logFile, "utf8").split("\n").slice(-30).join("\n")
    : "";
  const state =
    child?.exitCode === null
      ? `not ready after ${START_TIMEOUT_MS} ms`
      : `exited with ${child?.exitCode}`;
  throw new Error(`${name} ${state}:\n${tail}`);
}

function impersonationHeaders(as: Identity | undefined): [string, string][] {
  if (!as) return [];
  return [
    ["Impersonate-User", as.user],
    ...(as.groups ?? []).map((group): [string, string] => ["Impersonate-Group", group]),
  ];
}

function requester(url: string, ca: TestCa, admin: KeyPair, { guarded = true } = {}) {
  return async (method: string, path: string, options: RequestOptions = {}): Promise<ApiAnswer> => {
    if (guarded && options.body !== undefined && !isDryRun(path)) {
      refuseServiceClientConfig(options.body, `${method} ${path}`);
    }
    const headers = new Headers(impersonationHeaders(options.as));
    headers.set("Accept", "application/json");
    if (options.body !== undefined)
      headers.set("Content-Type", options.contentType ?? "application/json");
    const response = await fetch(`${url}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      tls: { ca: ca.cert, cert: admin.cert, key: admin.key },
      redirect: "manual",
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: /readyz and friends answer plain text
    }
    const warning = response.headers.get("warning");
    return { status: response.status, body, warnings: warning ? parseWarnings(warning) : [] };
  };
}

/** RFC 7234 warn-text of each `299 - "text"` value in a (possibly combined) Warning header. */
function parseWarnings(header: string): string[] {
  return [...header.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)].map((match) =>
    (match[1] ?? "").replace(/\\(.)/g, "$1"),
  );
}

async function kubectl(
  binary: string,
  connection: readonly string[],
  args: readonly string[],
  options: { as?: Identity; stdin?: string },
): Promise<CommandResult> {
  const identity = options.as
    ? [
        `--as=${options.as.user}`,
        ...(options.as.groups ?? []).map((group) => `--as-group=${group}`),
      ]
    : [];
  return runCommand([binary, ...connection, ...identity, ...args], CHILD_ENV, options.stdin);
}

/** Runs a command to its end with only `env`, and collects what it printed. */
export async function runCommand(
  command: readonly string[],
  env: Record<string, string>,
  stdin?: string,
): Promise<CommandResult> {
  const child = Bun.spawn([...command], {
    env,
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { exitCode, stdout, stderr };
}
