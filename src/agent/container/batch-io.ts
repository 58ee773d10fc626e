/**
 * @module agent/container/batch-io
 * A batch script in a container is started by the OCI runtime, as root: it cannot
 * open the job's files itself, since root would bypass their permissions. So the
 * files are opened by small relays that already run as the job's user (the same
 * user shell as every launch, see user-launch.ts), each then exec'ing `cat`:
 * the runtime's stdout and stderr are piped through stepd into them, and the
 * input file comes from one. Failure policy: a file the user may not open fails
 * the launch exactly as for a script outside a container.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { PassThrough, type Readable, type Writable } from "node:stream";
import { spawnAsUser, type Prefix, type UserProcess } from "../run-as.ts";
import { rootEnv, type OpenFailure, type UserLaunch } from "../user-launch.ts";


const CAT = ["/bin/cat"];
/** How long the relays may take to write what the runtime left in the pipes once it has exited. */
const DRAIN_MS_MAX = 10_000;

export interface Relayed {
  child: ChildProcess;
  /** Resolves when the output relays have written everything and exited (bounded). */
  drained(): Promise<void>;
}

/**
 * A child's piped output, consumed from now on. Bun (1.4) reads a child's pipe whether or not
 * anything listens and, once the child has exited, drops what no consumer took: a late
 * `pipe()` would see an empty stream. The PassThrough keeps it until the real reader comes.
 */
export function heldOutput(from: Readable | null): Readable {
  const held = new PassThrough();
  if (from === null) held.end();
  else from.pipe(held);
  return held;
}

/**
 * Open the job's files through relays running as the user, then start `runtimeArgv` (root, fixed
 * environment) with its stdio connected to them; or say which file could not be opened (nothing started).
 */
export async function spawnRelayed(l: UserLaunch, runtimeArgv: string[], prefix: Prefix): Promise<Relayed | OpenFailure> {
  const s = l.stdio;
  if (s === undefined) throw new Error("spawnRelayed needs the job's files");
  const joined = s.err === s.out;
  const relays: UserProcess[] = [];
  const writer = (path: string): UserProcess =>
    spawnAsUser({ ...l, workDir: "/", env: {}, stdio: { out: path, err: "-", in: "-", append: s.append } }, CAT, ["pipe", "ignore", "ignore"]);
  const out = writer(s.out);
  relays.push(out);
  const err = joined ? out : writer(s.err);
  if (!joined) relays.push(err);
  const input = s.in === "" ? undefined : spawnAsUser({ ...l, workDir: "/", env: {}, stdio: { out: "-", err: "-", in: s.in, append: false } }, CAT, ["ignore", "pipe", "ignore"]);
  // Held from the start: a short input file is read and its relay gone before the other relays report their opens.
  const inputText = input === undefined ? undefined : heldOutput(input.child.stdout);
  if (input !== undefined) relays.push(input);
  const failed = (await Promise.all(relays.map((r) => r.opened))).find((f) => f !== undefined);
  if (failed !== undefined) {
    for (const r of relays) r.child.kill("SIGKILL");
    return failed;
  }
  const [cmd, ...args] = prefix(runtimeArgv);
  const child = spawn(cmd as string, args, { cwd: "/", env: rootEnv(), detached: true, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
  const sink = (from: Readable | null, to: Writable | null, ends: boolean): void => {
    if (from === null || to === null) return;
    to.on("error", () => undefined);
    from.pipe(to, { end: ends });
  };
  let openStreams = joined ? 2 : 1;
  const closeOut = (): void => {
    openStreams -= 1;
    if (openStreams === 0) out.child.stdin?.end();
  };
  sink(child.stdout, out.child.stdin, !joined);
  sink(child.stderr, err.child.stdin, !joined);
  if (joined) {
    child.stdout?.once("end", closeOut);
    child.stderr?.once("end", closeOut);
  }
  if (inputText !== undefined) sink(inputText, child.stdin, true);
  const writers = [out, ...(joined ? [] : [err])].map((r) => new Promise<void>((resolve) => {
    if (r.child.exitCode !== null) resolve();
    r.child.once("exit", () => resolve());
  }));
  const drained = async (): Promise<void> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.all(writers), new Promise<void>((resolve) => { timer = setTimeout(resolve, DRAIN_MS_MAX); })]);
    if (timer !== undefined) clearTimeout(timer);
    input?.child.kill("SIGKILL");
  };
  return { child, drained };
}
