import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { errorText } from "../echo";

/**
 * The kernel's order of one SO_REUSEPORT group: a socket that starts
 * listening is appended; when one closes, the last socket moves into its
 * slot. A steering program names a socket by this index, so the listener
 * keeps its own copy and re-points the program after every change.
 */
export class ReuseportGroupOrder<T> {
  readonly #members: T[] = [];

  append(member: T): void {
    this.#members.push(member);
  }

  remove(member: T): void {
    const index = this.#members.indexOf(member);
    if (index === -1) return;
    const last = this.#members.pop() as T;
    if (index < this.#members.length) this.#members[index] = last;
  }

  indexOf(member: T): number {
    return this.#members.indexOf(member);
  }

  get members(): readonly T[] {
    return this.#members;
  }
}

/** The few socket calls steering needs; `loadSocketCalls` binds them to libc. */
export interface SocketCalls {
  /** Makes every new connection to the socket's group go to the socket at `index`. */
  steerGroupTo(fd: number, index: number): void;
  /** Connections the kernel has completed that the process has not accepted yet. */
  acceptQueueLength(fd: number): number;
  /**
   * Closes the listening socket behind `fd` while the fd number stays taken
   * by an unconnected placeholder socket: the server that owns the fd keeps
   * its accepted connections and closes the placeholder when it stops.
   */
  closeListeningSocket(fd: number): void;
}

export class SteeringUnavailable extends Error {
  override readonly name = "SteeringUnavailable";
  constructor(
    readonly reason: "unsupported" | "socket_not_found" | "refused" | "disabled",
    message: string,
  ) {
    super(message);
  }
}

const SOL_SOCKET = 1;
const SO_ATTACH_REUSEPORT_CBPF = 51;
const IPPROTO_TCP = 6;
const TCP_INFO = 11;
const TCP_INFO_SIZE = 232;
/** struct tcp_info.tcpi_unacked: the accept-queue length on a listening socket. */
const TCPI_UNACKED_OFFSET = 24;
const AF_UNIX = 1;
const SOCK_STREAM = 1;
const SOCK_CLOEXEC = 0o2000000;
const O_CLOEXEC = 0o2000000;
/** BPF_RET | BPF_K: the program returns the constant socket index. */
const BPF_RET_K = 0x06;

/** Binds the calls to the C library through bun:ffi. Throws SteeringUnavailable when it cannot. */
export function loadSocketCalls(): SocketCalls {
  if (process.platform !== "linux" || (process.arch !== "x64" && process.arch !== "arm64")) {
    throw new SteeringUnavailable(
      "unsupported",
      `listener steering needs Linux on x64 or arm64, not ${process.platform}/${process.arch}`,
    );
  }
  let ffi: typeof import("bun:ffi");
  let libc: ReturnType<typeof openLibc>;
  try {
    ffi = require("bun:ffi") as typeof import("bun:ffi");
    libc = openLibc(ffi);
  } catch (error) {
    throw new SteeringUnavailable("unsupported", `cannot load libc.so.6: ${errorText(error)}`);
  }
  const { ptr } = ffi;
  const { symbols } = libc;
  const lastError = (call: string) =>
    new SteeringUnavailable("refused", `${call} failed (errno ${readErrno(ffi, symbols)})`);
  return {
    steerGroupTo(fd, index) {
      const filter = new Uint8Array(8);
      const filterView = new DataView(filter.buffer);
      filterView.setUint16(0, BPF_RET_K, true);
      filterView.setUint32(4, index, true);
      const program = new Uint8Array(16);
      const programView = new DataView(program.buffer);
      programView.setUint16(0, 1, true);
      programView.setBigUint64(8, BigInt(ptr(filter)), true);
      const result = symbols.setsockopt(
        fd,
        SOL_SOCKET,
        SO_ATTACH_REUSEPORT_CBPF,
        ptr(program),
        program.length,
      );
      if (result !== 0) throw lastError("setsockopt(SO_ATTACH_REUSEPORT_CBPF)");
    },
    acceptQueueLength(fd) {
      const info = new Uint8Array(TCP_INFO_SIZE);
      const length = new Uint32Array([TCP_INFO_SIZE]);
      if (symbols.getsockopt(fd, IPPROTO_TCP, TCP_INFO, ptr(info), ptr(length)) !== 0) {
        throw lastError("getsockopt(TCP_INFO)");
      }
      return new DataView(info.buffer).getUint32(TCPI_UNACKED_OFFSET, true);
    },
    closeListeningSocket(fd) {
      const placeholder = symbols.socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (placeholder < 0) throw lastError("socket(AF_UNIX)");
      const replaced = symbols.dup3(placeholder, fd, O_CLOEXEC);
      symbols.close(placeholder);
      if (replaced !== fd) throw lastError("dup3");
    },
  };
}

function openLibc(ffi: typeof import("bun:ffi")) {
  const { FFIType, dlopen } = ffi;
  return dlopen("libc.so.6", {
    setsockopt: {
      args: [FFIType.i32, FFIType.i32, FFIType.i32, FFIType.ptr, FFIType.u32],
      returns: FFIType.i32,
    },
    getsockopt: {
      args: [FFIType.i32, FFIType.i32, FFIType.i32, FFIType.ptr, FFIType.ptr],
      returns: FFIType.i32,
    },
    socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    dup3: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  });
}

function readErrno(
  ffi: typeof import("bun:ffi"),
  symbols: ReturnType<typeof openLibc>["symbols"],
): number {
  const location = symbols.__errno_location();
  return location === null ? -1 : ffi.read.i32(location, 0);
}

/** One listening socket of this process: its fd and the reuseport group it belongs to. */
export interface ListeningSocket {
  readonly fd: number;
  readonly inode: string;
  /** The local address as the kernel lists it; sockets sharing it share a group. */
  readonly group: string;
}

/** The listening TCP sockets of a process (this one by default) on `port`, from /proc. */
export function listeningSocketsOnPort(
  port: number,
  pid: number | "self" = "self",
): ListeningSocket[] {
  const portHex = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const groups = new Map<string, string>();
  for (const table of [`/proc/${pid}/net/tcp`, `/proc/${pid}/net/tcp6`]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue; // no IPv6 in this kernel
    }
    for (const line of text.split("\n").slice(1)) {
      const columns = line.trim().split(/\s+/);
      const local = columns[1];
      const inode = columns[9];
      if (columns[3] === "0A" && local?.endsWith(portHex) && inode) {
        groups.set(inode, `${table.endsWith("6") ? "tcp6" : "tcp"} ${local}`);
      }
    }
  }
  const sockets: ListeningSocket[] = [];
  for (const name of readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${name}`);
    } catch {
      continue; // closed meanwhile
    }
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    const group = inode === undefined ? undefined : groups.get(inode);
    if (inode !== undefined && group !== undefined) {
      sockets.push({ fd: Number(name), inode, group });
    }
  }
  return sockets;
}
