/**
 * @module agent/stdin-pipe
 * A real pipe for a task's stdin when srun forwards its stdin. Node's and Bun's
 * `stdio: "pipe"` give the child one end of a socket pair, and bash takes a
 * socket on stdin for a remote-shell login (it then reads ~/.bashrc when SHLVL
 * is unset, e.g. under `--export=NONE`); slurmstepd gives tasks a pipe. So the
 * pipe comes from pipe2(2) through bun:ffi: the read end becomes the task's
 * fd 0, the write end stays here, non-blocking, and is written with plain
 * write(2) calls. Failure policy: a full pipe is retried every `RETRY_MS` (the
 * task is not reading; nothing blocks the agent's threads); a pipe whose reader
 * is gone (EPIPE) drops what is left; without pipe2 the caller falls back to
 * the socket pair.
 */
import { dlopen, FFIType, ptr } from "bun:ffi";
import { closeSync, writeSync } from "node:fs";
import type { Writable } from "node:stream";

const O_CLOEXEC = 0o2000000;
const O_NONBLOCK = 0o4000;
const F_SETFL = 4;
/** How long to wait before writing again into a full pipe. */
const RETRY_MS = 20;

/** Where one task's forwarded stdin is written; `end` closes it (the task reads end of input). */
export interface TaskStdin {
  /** Resolves once all of `data` is in the pipe, or the task can no longer read it. */
  write(data: Uint8Array): Promise<void>;
  end(): void;
  /** True once ended or once the reader is gone. */
  readonly done: boolean;
  /** A terminal's (srun --pty, pty.ts): srun's window changed size. */
  resize?(size: { rows: number; cols: number }): void;
}

type Libc = { pipe2(fds: number, flags: number): number; fcntl(fd: number, cmd: number, arg: number): number };
let libc: Libc | undefined | null;

function loadLibc(): Libc | undefined {
  if (libc === null) return undefined;
  if (libc !== undefined) return libc;
  try {
    const lib = dlopen("libc.so.6", {
      pipe2: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
      fcntl: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    });
    libc = lib.symbols as unknown as Libc;
    return libc;
  } catch {
    libc = null;
    return undefined;
  }
}

/** A pipe for one task: `readFd` goes to the child as fd 0 (then `closeReadEnd`); undefined without pipe2. */
export function openStdinPipe(): (TaskStdin & { readFd: number; closeReadEnd(): void }) | undefined {
  const lib = loadLibc();
  if (lib === undefined) return undefined;
  const fds = new Int32Array(2);
  if (lib.pipe2(ptr(fds) as unknown as number, O_CLOEXEC) !== 0) return undefined;
  const [readFd, writeFd] = [fds[0] as number, fds[1] as number];
  lib.fcntl(writeFd, F_SETFL, O_NONBLOCK); // only our end: the task's reads stay blocking
  let done = false;
  let closed = false;
  let chain: Promise<void> = Promise.resolve();
  const close = () => {
    if (closed) return;
    closed = true;
    done = true;
    closeSync(writeFd);
  };
  const writeAll = async (data: Uint8Array): Promise<void> => {
    let offset = 0;
    while (offset < data.length && !closed) {
      try {
        offset += writeSync(writeFd, data, offset, data.length - offset);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EAGAIN") return close(); // EPIPE: the task is gone
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  };
  return {
    readFd,
    closeReadEnd: () => closeSync(readFd),
    get done() {
      return done;
    },
    write(data) {
      chain = chain.then(() => writeAll(data));
      return chain;
    },
    end() {
      done = true;
      void chain.then(close);
    },
  };
}

/** The same interface over a child's `stdio: "pipe"` stream (the fallback). */
export function streamStdin(w: Writable): TaskStdin {
  w.on("error", () => undefined); // EPIPE: the task is gone or stopped reading
  let done = false;
  w.once("close", () => (done = true));
  return {
    get done() {
      return done || w.destroyed || w.writableEnded;
    },
    write(data) {
      if (this.done || w.write(data)) return Promise.resolve();
      return new Promise((resolve) => {
        const go = () => {
          w.off("drain", go);
          w.off("close", go);
          resolve();
        };
        w.once("drain", go);
        w.once("close", go);
      });
    },
    end() {
      done = true;
      if (!w.destroyed && !w.writableEnded) w.end();
    },
  };
}
