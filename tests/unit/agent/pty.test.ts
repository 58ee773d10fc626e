/**
 * agent/pty: a task's pseudo-terminal (srun --pty). The task started on it by
 * the user's shell (withTerminal) has it as its controlling terminal, sees the
 * window size it was opened with and a resize, reads what is written into the
 * master, and the master reads as ended once the task is gone. Runs real
 * processes on a real pty (Linux).
 */
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { openPty, windowSize, withTerminal } from "../../../src/agent/pty.ts";

describe("openPty", () => {
  it("gives the task a controlling terminal of the given size, its input and its output", async () => {
    const pty = openPty(process.getuid?.() ?? 0, { rows: 33, cols: 77 });
    if (pty === undefined) throw new Error("no pty on this host");
    expect(pty.path).toMatch(/^\/dev\/pts\/\d+$/);
    expect(windowSize(pty.slaveFd)).toEqual({ rows: 33, cols: 77 });
    // `ps -o tty=` names the controlling terminal; `read` waits for a line written into the master
    const script = 'stty size; tty; ps -o tty= -p $$; read l; echo "got:$l"; stty size';
    const child = spawn(...(([c, ...a]) => [c as string, a] as const)(withTerminal(pty.path, ["/bin/sh", "-c", script])), {
      stdio: [pty.slaveFd, pty.slaveFd, pty.slaveFd], detached: true,
    });
    pty.closeSlave();
    let out = "";
    const read = pty.read((b) => {
      out += new TextDecoder().decode(b);
      if (out.split("\r\n").includes(pty.path.slice("/dev/".length)) && !out.includes("hello")) {
        pty.input.resize({ rows: 20, cols: 50 });
        void pty.input.write(new TextEncoder().encode("hello\n"));
      }
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    await read; // ends at EIO: nothing holds the slave any more
    pty.close();
    expect(code).toBe(0);
    const lines = out.split("\r\n").filter((l) => l !== "");
    expect(lines).toEqual(["33 77", pty.path, pty.path.slice("/dev/".length), "hello", "got:hello", "20 50"]);
  });

  it("withTerminal opens the terminal as the user's command, then execs it with its arguments", () => {
    expect(withTerminal("/dev/pts/7", ["bash", "-i"])).toEqual(["/bin/sh", "-c", ': <>"$1" || exit 1; shift; exec "$@"', "spur_pty", "/dev/pts/7", "bash", "-i"]);
  });
});
