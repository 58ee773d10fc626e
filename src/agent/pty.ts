/**
 * @module agent/pty
 * The pseudo-terminal of an `srun --pty` task (task 0), as slurmstepd gives it
 * one. The agent (root) opens the master with posix_openpt(3) through bun:ffi,
 * unlocks it, sets srun's window size and opens the slave by the name the
 * kernel gave it (never a path the job names: docs/security.md), owned by the
 * job's user. The slave becomes the task's fds 0-2; the user's shell makes it
 * its controlling terminal (`withTerminal`: the task is a session leader, and
 * a session leader without one acquires the terminal it opens, which is what
 * TIOCSCTTY does). The master stays here: what the task writes is read from
 * it and sent to srun as stdout, srun's keystrokes are written into it.
 *
 * Failure policy: without posix_openpt (no libc, not Linux) `openPty` returns
 * undefined and the task runs on pipes as usual. Reads end at EIO (no process
 * holds the slave any more) or when `close` is called (the task exited and a
 * process it left behind still holds the terminal: it is hung up). Writes go
 * through the thread pool (fs.write), so a task that does not read its
 * terminal never blocks the agent.
 */
import { dlopen, FFIType, ptr } from "bun:ffi";
import { closeSync, createReadStream, fchownSync, fstatSync, openSync, write } from "node:fs";
import type { TaskStdin } from "./stdin-pipe.ts";

const O_RDWR = 2;
const O_NOCTTY = 0o400;
const O_CLOEXEC = 0o2000000;
const TIOCGWINSZ = 0x5413;
const TIOCSWINSZ = 0x5414;

type Libc = {
  posix_openpt(flags: number): number;
  grantpt(fd: number): number;
  unlockpt(fd: number): number;
  ptsname_r(fd: number, buf: number, len: number): number;
  ioctl(fd: number, req: number, arg: number): number;
  tcgetattr(fd: number, termios: number): number;
  tcsetattr(fd: number, when: number, termios: number): number;
  cfmakeraw(termios: number): void;
};
let libc: Libc | undefined | null;

function loadLibc(): Libc | undefined {
  if (libc === null) return undefined;
  if (libc !== undefined) return libc;
  try {
    const lib = dlopen("libc.so.6", {
      posix_openpt: { args: [FFIType.i32], returns: FFIType.i32 },
      grantpt: { args: [FFIType.i32], returns: FFIType.i32 },
      unlockpt: { args: [FFIType.i32], returns: FFIType.i32 },
      ptsname_r: { args: [FFIType.i32, FFIType.ptr, FFIType.u64], returns: FFIType.i32 },
      ioctl: { args: [FFIType.i32, FFIType.u64, FFIType.ptr], returns: FFIType.i32 },
      tcgetattr: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
      tcsetattr: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
      cfmakeraw: { args: [FFIType.ptr], returns: FFIType.void },
    });
    libc = lib.symbols as unknown as Libc;
    return libc;
  } catch {
    libc = null;
    return undefined;
  }
}

export interface WindowSize {
  rows: number;
  cols: number;
}

/** Set the window size of the terminal on `fd` (the kernel signals SIGWINCH to its foreground group). */
export function setWindowSize(fd: number, size: WindowSize): boolean {
  const lib = loadLibc();
  if (lib === undefined || size.rows <= 0 || size.cols <= 0) return false;
  const ws = new Uint16Array([size.rows, size.cols, 0, 0]);
  return lib.ioctl(fd, TIOCSWINSZ, ptr(ws) as unknown as number) === 0;
}

/** The window size of the terminal on `fd`, or undefined when it is none (srun: TIOCGWINSZ on its stdin). */
export function windowSize(fd: number): WindowSize | undefined {
  const lib = loadLibc();
  if (lib === undefined) return undefined;
  const ws = new Uint16Array(4);
  if (lib.ioctl(fd, TIOCGWINSZ, ptr(ws) as unknown as number) !== 0) return undefined;
  return { rows: ws[0] ?? 0, cols: ws[1] ?? 0 };
}

/** struct termios (60 bytes with glibc on Linux), with room to spare. */
const TERMIOS_BYTES = 128;
const TCSANOW = 0;
const TCSADRAIN = 1;

/**
 * Put the terminal on `fd` in raw mode (cfmakeraw(3): no echo, no line editing, no signals from keys,
 * no output processing); returns its settings before, for `restoreTerminal`, or undefined when `fd` is no terminal.
 */
export function makeRaw(fd: number): Uint8Array | undefined {
  const lib = loadLibc();
  if (lib === undefined) return undefined;
  const saved = new Uint8Array(TERMIOS_BYTES);
  if (lib.tcgetattr(fd, ptr(saved) as unknown as number) !== 0) return undefined;
  const raw = saved.slice();
  lib.cfmakeraw(ptr(raw) as unknown as number);
  return lib.tcsetattr(fd, TCSANOW, ptr(raw) as unknown as number) === 0 ? saved : undefined;
}

/** Give the terminal on `fd` back the settings `makeRaw` returned (after its pending output). */
export function restoreTerminal(fd: number, saved: Uint8Array): void {
  loadLibc()?.tcsetattr(fd, TCSADRAIN, ptr(saved) as unknown as number);
}

export interface Pty {
  /** The slave's name (/dev/pts/N): what the user's shell opens to make it its controlling terminal. */
  path: string;
  /** The slave, for the task's fds 0-2; `closeSlave` once the task is spawned. */
  slaveFd: number;
  closeSlave(): void;
  /** srun's keystrokes into the terminal; `end` does not hang up (the task ends itself, e.g. on ^D). */
  input: TaskStdin & { resize(size: WindowSize): void };
  /** Read what the task writes: `onData` per chunk; resolves once reading has ended. */
  read(onData: (b: Uint8Array) => void): Promise<void>;
  /** Stop reading and close the master (hangs up whatever still holds the slave). */
  close(): void;
}

/** A new pseudo-terminal for a task of `uid` with `size`, or undefined when none can be opened here. */
export function openPty(uid: number, size: WindowSize): Pty | undefined {
  const lib = loadLibc();
  if (lib === undefined) return undefined;
  const master = lib.posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) return undefined;
  let slaveFd = -1;
  try {
    const name = new Uint8Array(128);
    if (lib.grantpt(master) !== 0 || lib.unlockpt(master) !== 0 || lib.ptsname_r(master, ptr(name) as unknown as number, name.length) !== 0) {
      throw new Error("pty");
    }
    const path = new TextDecoder().decode(name.subarray(0, name.indexOf(0)));
    if (!/^\/dev\/pts\/\d+$/.test(path)) throw new Error("pty");
    slaveFd = openSync(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
    // the job's user must be able to open it again (to make it the controlling terminal) and to write it
    if ((process.getuid?.() ?? 0) === 0) fchownSync(slaveFd, uid, fstatSync(slaveFd).gid);
    setWindowSize(master, size);
    return ptyOn(master, slaveFd, path);
  } catch {
    if (slaveFd >= 0) closeSync(slaveFd);
    closeSync(master);
    return undefined;
  }
}

function ptyOn(master: number, slaveFd: number, path: string): Pty {
  let closed = false;
  let slaveOpen = true;
  let inputDone = false;
  let chain: Promise<void> = Promise.resolve();
  let stream: ReturnType<typeof createReadStream> | undefined;
  let ended: (() => void) | undefined;
  const writeAll = async (data: Uint8Array): Promise<void> => {
    let offset = 0;
    while (offset < data.length && !closed) {
      const n = await new Promise<number>((resolve) => write(master, data, offset, data.length - offset, null, (e, w) => resolve(e ? -1 : w)));
      if (n <= 0) return void (inputDone = true);
      offset += n;
    }
  };
  // Once reading started, the read stream owns the master: Bun closes the fd when the stream ends or is
  // destroyed (autoClose), so it is closed here only when it never started.
  const close = (): void => {
    if (closed) return;
    closed = true;
    inputDone = true;
    ended?.();
    // after pending writes: closing the fd under a write in flight would hand its number to another file
    void chain.then(() => (stream === undefined ? closeSync(master) : stream.destroy()));
  };
  return {
    path,
    slaveFd,
    closeSlave: () => {
      if (slaveOpen) closeSync(slaveFd);
      slaveOpen = false;
    },
    input: {
      get done() {
        return inputDone || closed;
      },
      write(data) {
        chain = chain.then(() => writeAll(data));
        return chain;
      },
      end() {
        inputDone = true;
      },
      resize: (size) => void (!closed && setWindowSize(master, size)),
    },
    read(onData) {
      return new Promise<void>((resolve) => {
        ended = resolve;
        if (closed) return resolve();
        stream = createReadStream("", { fd: master, autoClose: true, highWaterMark: 16 * 1024 });
        stream.on("data", (b) => onData(new Uint8Array(b as Buffer)));
        // EIO: the last holder of the slave closed it, the master reads as ended (and is closed)
        const over = (): void => {
          inputDone = true;
          closed = true;
          resolve();
        };
        stream.once("error", over);
        stream.once("end", over);
        stream.once("close", over);
      });
    },
    close,
  };
}

/**
 * The command run as the job's user on a terminal: its shell opens `path` once, which makes it the
 * controlling terminal of the task's session (the task is a session leader: spurd spawns it detached),
 * then execs the command in the same process.
 */
export function withTerminal(path: string, argv: readonly string[]): string[] {
  return ["/bin/sh", "-c", ': <>"$1" || exit 1; shift; exec "$@"', "spur_pty", path, ...argv];
}
