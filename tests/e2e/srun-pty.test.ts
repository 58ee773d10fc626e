/**
 * End-to-end: `srun --pty` (issue 19, interactive). srun runs under util-linux
 * `script`, which gives it a terminal as a user's shell has one. Task 0 gets a
 * pseudo-terminal on the node as its controlling terminal (`tty` names a
 * /dev/pts path, `test -t`), with srun's window size (and a later change),
 * srun's terminal is in raw mode while the step runs and back afterwards (also
 * when srun is killed), keystrokes reach the task (Ctrl-D ends bash), the exit
 * status comes back; without a terminal srun says what Slurm's says and runs
 * the step without one. Expected texts from the Slurm 22.05 oracle.
 * Waits on conditions, never fixed sleeps in assertions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { BIN, ensureUser, eventually, isRoot, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "4", "--mem-per-node", "4000"]);
});
afterAll(() => c?.down());

/** Run shell text `cmd` on a terminal of its own (script -e: script exits with the command's status). */
function onTerminal(cmd: string, opts: { input?: string; user?: string } = {}): { out: string; code: number } {
  const script = ["script", "-eqc", cmd, "/dev/null"];
  const id = (flag: string) => spawnSync("id", [flag, opts.user ?? ""], { encoding: "utf8" }).stdout.trim();
  const argv = opts.user === undefined ? script : ["setpriv", `--reuid=${id("-u")}`, `--regid=${id("-g")}`, "--init-groups", "--", ...script];
  const r = spawnSync(argv[0] as string, argv.slice(1), { env: c.env, cwd: c.work, input: opts.input ?? "", encoding: "utf8", timeout: 120_000 });
  return { out: r.stdout ?? "", code: r.status ?? -1 };
}

/**
 * The terminal's output as lines, without the CRs a terminal adds and without the `^@` that `script`
 * makes the task's terminal echo when its own input ends (the oracle's output has it too).
 */
const linesOf = (out: string): string[] =>
  out.split(/\r?\n/).map((l) => l.replace(/\r/g, "").replace(/\^@/g, "")).filter((l) => l !== "" && !/^\d+: $/.test(l));

describe("srun --pty", () => {
  it("task 0's stdin, stdout and stderr are a /dev/pts terminal, its controlling terminal", () => {
    const r = onTerminal(`srun --pty bash -c 'tty; test -t 0 && test -t 1 && test -t 2 && echo yes; ps -o tty= -p $$'`);
    expect(r.code).toBe(0);
    const [tty, yes, ctty] = linesOf(r.out);
    expect(tty).toMatch(/^\/dev\/pts\/\d+$/);
    expect(yes).toBe("yes");
    expect(ctty).toBe(tty?.slice("/dev/".length));
  });

  it("the task's terminal has srun's window size, also in SLURM_PTY_WIN_ROW/COL", () => {
    const r = onTerminal(`stty cols 100 rows 40; srun --pty bash -c 'stty size; echo $SLURM_PTY_WIN_ROW $SLURM_PTY_WIN_COL'`);
    expect(linesOf(r.out)).toEqual(["40 100", "40 100"]);
  });

  it("a window change reaches the running task (SIGWINCH, then the new size)", () => {
    // the task waits until its size is no longer the initial one; srun's terminal keeps changing size meanwhile
    // (only once the task runs: `started` is made by it)
    const task = `echo $(stty size); touch winch-started; while [ "$(stty size)" = "40 100" ]; do sleep 0.2; done; echo changed`;
    const wait = "until [ -e winch-started ]; do sleep 0.1; done";
    const cmd = `stty cols 100 rows 40; srun --pty bash -c '${task}' & p=$!; ${wait}; n=0; while kill -0 $p 2>/dev/null; do n=$((n + 1)); stty cols $((50 + n % 2)) rows 20; sleep 0.3; done; wait $p`;
    const r = onTerminal(cmd);
    expect(r.code).toBe(0);
    expect(linesOf(r.out)).toEqual(["40 100", "changed"]);
  });

  it("passes the exit status back, with Slurm's line for it", () => {
    const r = onTerminal(`srun --pty bash -c 'exit 3'`);
    expect(r.code).toBe(3);
    expect(linesOf(r.out)).toEqual(["srun: error: n1: task 0: Exited with exit code 3"]);
  });

  it("srun's terminal is raw while the step runs and restored after it, also when srun is killed", () => {
    // the task runs until the mode was looked at (marker files in the shared work directory)
    // (`</dev/tty`: a background command of `sh -c` reads /dev/null otherwise)
    const during = onTerminal(`srun --pty bash -c 'touch raw-in; until [ -e raw-seen ]; do sleep 0.1; done' </dev/tty & until [ -e raw-in ]; do sleep 0.1; done; stty -a | grep -o -- ' -\\?icanon'; touch raw-seen; wait`);
    const modes = (out: string) => linesOf(out).map((l) => l.trim());
    expect(modes(during.out)).toEqual(["-icanon"]);
    const after = onTerminal(`srun --pty true; stty -a | grep -o -- ' -\\?icanon\\| -\\?echo '`);
    expect(modes(after.out)).toEqual(["icanon", "echo"]);
    const killed = onTerminal(`srun --pty sleep 60 </dev/tty & p=$!; until stty -a | grep -q -- -icanon; do sleep 0.1; done; kill -TERM $p; wait $p; echo rc=$?; stty -a | grep -o -- ' -\\?icanon'`);
    expect(modes(killed.out)).toEqual(["rc=143", "icanon"]);
  });

  it("keys reach the task: bash -i runs a line, Ctrl-C interrupts, Ctrl-D ends it", async () => {
    const srun = spawn("script", ["-eqc", "PS1='ready> ' srun --pty bash --norc --noprofile -i", "/dev/null"], { env: c.env, cwd: c.work, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    srun.stdout.on("data", (b: Buffer) => (out += b.toString()));
    let code: number | null | undefined;
    srun.on("exit", (rc) => (code = rc));
    const seen = (what: string, re: RegExp) => eventually(what, () => (re.test(out) ? true : undefined), 30_000);
    try {
      await eventually("the prompt", () => (out.includes("ready> ") ? true : undefined), 60_000);
      srun.stdin.write("echo $((6 * 7))\r");
      await seen("the answer", /[\r\n]42\r\n/);
      // Ctrl-C is a key too: the task's terminal makes it SIGINT for its foreground process
      srun.stdin.write(`bash -c 'trap "echo caught; exit 0" INT; echo start; sleep 100 & wait'\r`);
      await seen("the trap set", /[\r\n]start\r\n/);
      srun.stdin.write("\x03");
      await seen("SIGINT in the task", /caught\r\n/);
      srun.stdin.write("\x04");
      await eventually("srun's exit", () => (code === undefined ? undefined : code), 30_000);
    } catch (e) {
      throw new Error(`${(e as Error).message}; the terminal showed ${JSON.stringify(out)}`);
    } finally {
      srun.kill("SIGKILL"); // srun, if still there, is hung up
    }
    expect(code).toBe(0);
  });

  it("only task 0 is on the terminal: the other tasks' output is not shown (oracle: -n2 -l)", () => {
    const r = onTerminal(`srun -N2 -n2 -l --pty bash -c 'tty; echo $SLURM_PROCID'`);
    expect(r.code).toBe(0);
    const lines = linesOf(r.out);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^0: \/dev\/pts\/\d+$/);
    expect(lines[1]).toBe("0: 0");
  });

  it("without a terminal on stdout: Slurm's two lines, and the step runs without one", () => {
    const r = spawnSync(BIN, ["srun", "--pty", "tty"], { env: c.env, cwd: c.work, input: "", encoding: "utf8" });
    expect(r.stdout).toBe("not a tty\n");
    expect(r.stderr).toBe(
      "srun: error: ioctl(TIOCGWINSZ): Inappropriate ioctl for device\nsrun: error: Not using a pseudo-terminal, disregarding --pty option\nsrun: error: n1: task 0: Exited with exit code 1\n",
    );
    expect(r.status).toBe(1);
  });

  it.runIf(isRoot() && ensureUser("spurptyuser"))("the terminal belongs to the job's user, and works inside salloc", () => {
    const uid = spawnSync("id", ["-u", "spurptyuser"], { encoding: "utf8" }).stdout.trim();
    const r = onTerminal(`salloc -Q -n1 srun --pty bash -c 'stat -c %u $(tty); id -u'`, { user: "spurptyuser" });
    expect(r.code).toBe(0);
    expect(linesOf(r.out)).toEqual([uid, uid]);
  });
});
