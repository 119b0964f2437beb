import { readFileSync } from "node:fs";

/** The uid/gid the manifests run the webhook as. */
export const NONROOT_ID = 65532;

export interface PrivilegeDrop {
  /** Prefix for the binary's command line; empty when the tests already run unprivileged. */
  readonly wrap: readonly string[];
  /** Why the binary runs as it does, for the test log. */
  readonly note: string;
}

/**
 * Runs the binary as the manifests' security context does: uid/gid 65532, no
 * supplementary groups, every capability dropped (inheritable and bounding
 * set), no_new_privs. Needs root and util-linux's setpriv to get there; a
 * non-root test run is already unprivileged.
 */
export function dropPrivileges(): PrivilegeDrop {
  if (process.getuid?.() !== 0) {
    return { wrap: [], note: `tests run as uid ${process.getuid?.()}: binary runs as that user` };
  }
  if (Bun.which("setpriv") === null) {
    return { wrap: [], note: "root without setpriv: binary runs as root (privileges NOT dropped)" };
  }
  return {
    wrap: [
      "setpriv",
      `--reuid=${NONROOT_ID}`,
      `--regid=${NONROOT_ID}`,
      "--clear-groups",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--no-new-privs",
    ],
    note: `binary runs as uid ${NONROOT_ID} with no capabilities and no_new_privs (setpriv)`,
  };
}

export interface ProcessPrivileges {
  readonly uid: number;
  readonly effectiveCapabilities: bigint;
  readonly noNewPrivs: boolean;
}

/** What /proc says about a running process's privileges. */
export function privilegesOf(pid: number): ProcessPrivileges {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => new RegExp(`^${name}:\\s+(\\S+)`, "m").exec(status)?.[1] ?? "";
  return {
    uid: Number(field("Uid")),
    effectiveCapabilities: BigInt(`0x${field("CapEff") || "0"}`),
    noNewPrivs: field("NoNewPrivs") === "1",
  };
}

/** net.ipv4.tcp_migrate_req of this network namespace ("absent" on kernels without it). */
export function tcpMigrateReq(): string {
  try {
    return readFileSync("/proc/sys/net/ipv4/tcp_migrate_req", "utf8").trim();
  } catch {
    return "absent";
  }
}
