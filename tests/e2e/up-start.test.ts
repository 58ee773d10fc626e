/**
 * End-to-end: `spur up` on a port another process holds. The daemon that cannot bind
 * exits; `spur up` must say which one and why at once (not after its whole wait), and
 * leave none of the cluster's other daemons running.
 */
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN } from "./cluster.ts";

const dir = mkdtempSync(join(tmpdir(), "spur-up-start-"));
const state = join(dir, "cluster");
let holder: Server | undefined;
afterAll(() => {
  holder?.close();
  spawnSync(BIN, ["down", "--state-dir", state]);
  rmSync(dir, { recursive: true, force: true });
});

/** PIDs of live processes whose command line names the state directory. */
function daemonsOf(path: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (cmd.includes(path) && !/^\d+ \(.*\) Z/.test(stat)) out.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return out;
}

describe("spur up when a node's port is taken", () => {
  it("names the daemon and its error at once and stops the others", async () => {
    // A first up writes spur.conf with its ports; a fresh state but for spur.conf makes every node register anew.
    expect(spawnSync(BIN, ["up", "--detach", "--nodes", "2", "--state-dir", state]).status).toBe(0);
    expect(spawnSync(BIN, ["down", "--state-dir", state]).status).toBe(0);
    for (const entry of readdirSync(state)) if (entry !== "spur.conf") rmSync(join(state, entry), { recursive: true, force: true });
    const port = Number(/^NodeName=n1 .*Port=(\d+)/m.exec(readFileSync(join(state, "spur.conf"), "utf8"))?.[1]);
    expect(port).toBeGreaterThan(0);
    holder = createServer();
    await new Promise<void>((res) => holder?.listen(port, "0.0.0.0", () => res()));
    const t0 = Date.now();
    const up = spawnSync(BIN, ["up", "--detach", "--state-dir", state], { encoding: "utf8", timeout: 90_000 });
    const took = Date.now() - t0;
    expect(up.status).not.toBe(0);
    expect(up.stderr).toContain("spurd-n1 exited while the cluster was starting");
    expect(up.stderr).toContain(`${port}`);
    expect(took).toBeLessThan(30_000);
    expect(daemonsOf(state)).toEqual([]);
  });
});
