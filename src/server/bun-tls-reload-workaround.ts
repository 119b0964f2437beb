import { readdirSync, readlinkSync } from "node:fs";
import { errorText } from "../bounded-text";

/*
 * Needed while Bun's `server.reload({ tls })` keeps the old certificate. The day
 * test/server/tls-reload-canary.test.ts fails, `rotate` calls `server.reload({ fetch, tls })`,
 * and this module, the listener's generations, TLS_ROTATION_STEERING and the steering metrics go.
 */

/**
 * As the kernel removes a socket from a SO_REUSEPORT group: the last one moves
 * into the freed slot. A steering program names a socket by that index.
 */
export function removeFromReuseportGroup<T>(order: T[], member: T): void {
  const index = order.indexOf(member);
  if (index === -1) return;
  const last = order.pop() as T;
  if (index < order.length) order[index] = last;
}

export interface SocketCalls {
  listeningSockets(port: number): ListeningSocket[];
  steerGroupTo(fd: number, index: number): void;
  acceptQueueLength(fd: number): number;
  /**
   * An unconnected placeholder takes the fd number, so the server that owns
   * it keeps its accepted connections and closes the placeholder when it stops.
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
const SO_ACCEPTCONN = 30;
const AF_INET = 2;
const AF_INET6 = 10;
/** sizeof(struct sockaddr_storage): room for any address getsockname returns. */
const SOCKADDR_STORAGE_SIZE = 128;
const TCP_INFO_SIZE = 232;
/** struct tcp_info.tcpi_unacked: the accept-queue length on a listening socket. */
const TCPI_UNACKED_OFFSET = 24;
const AF_UNIX = 1;
const SOCK_STREAM = 1;
const SOCK_CLOEXEC = 0o2000000;
const O_CLOEXEC = 0o2000000;
/** BPF_RET | BPF_K: the program returns the constant socket index. */
const BPF_RET_K = 0x06;

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
  const lastError = (call: string) => {
    const errno = symbols.__errno_location();
    const code = errno === null ? -1 : ffi.read.i32(errno, 0);
    return new SteeringUnavailable("refused", `${call} failed (errno ${code})`);
  };
  const isListening = (fd: number) => {
    const flag = new Int32Array(1);
    const length = new Uint32Array([flag.byteLength]);
    const result = symbols.getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, ptr(flag), ptr(length));
    return result === 0 && flag[0] !== 0;
  };
  return {
    listeningSockets(port) {
      const sockets: ListeningSocket[] = [];
      const address = new Uint8Array(SOCKADDR_STORAGE_SIZE);
      const view = new DataView(address.buffer);
      const length = new Uint32Array(1);
      for (const { fd, inode } of socketFds("self")) {
        length[0] = address.byteLength;
        if (symbols.getsockname(fd, ptr(address), ptr(length)) !== 0) continue; // closed meanwhile
        const family = view.getUint16(0, true);
        // sin_port and sin6_port: offset 2, network byte order.
        if ((family !== AF_INET && family !== AF_INET6) || view.getUint16(2) !== port) continue;
        if (!isListening(fd)) continue;
        const host = family === AF_INET ? address.subarray(4, 8) : address.subarray(8, 24);
        const protocol = family === AF_INET ? "tcp" : "tcp6";
        sockets.push({
          fd,
          inode,
          group: `${protocol} ${Buffer.from(host).toString("hex")}:${port}`,
        });
      }
      return sockets;
    },
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
    getsockname: { args: [FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    dup3: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  });
}

export interface ListeningSocket {
  readonly fd: number;
  readonly inode: string;
  /** The local address as the kernel lists it; sockets sharing it share a group. */
  readonly group: string;
}

export function socketFds(pid: number | "self"): { fd: number; inode: string }[] {
  const sockets: { fd: number; inode: string }[] = [];
  for (const name of readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${name}`);
    } catch {
      continue; // closed meanwhile
    }
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode !== undefined) sockets.push({ fd: Number(name), inode });
  }
  return sockets;
}
