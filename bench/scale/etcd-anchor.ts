/**
 * @module bench/scale/etcd-anchor
 * The anchor for replicated submissions: a 3-member etcd (Debian's `etcd-server`, 3.4) on
 * loopback with the timeouts Spur runs with (heartbeat 50 ms, election DAEMON_ELECTION_TICKS x 50 ms), driven the
 * same way as Spur: in-process fetch of its JSON gateway (`POST /v3/kv/put`, 1 KB values) at
 * the leader, a fixed number of requests in flight. etcd fsyncs its WAL before it
 * acknowledges, as Spur does, so both figures are durable-on-a-quorum rates.
 * Failure policy: without /usr/bin/etcd the anchor is skipped (undefined), never faked.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DAEMON_ELECTION_TICKS } from "../../src/raft/driver/api.ts";

const ETCD = "/usr/bin/etcd";

export interface Etcd {
  leaderUrl: string;
  /** The members' process ids (for CPU figures). */
  pids: number[];
  stop(): Promise<void>;
}

/** Start three members on ports base..base+5; resolves once a leader answers. */
export async function startEtcd(base = 23790): Promise<Etcd | undefined> {
  if (!existsSync(ETCD)) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "spur-bench-etcd-"));
  const members = [1, 2, 3].map((i) => ({ name: `m${i}`, client: base + (i - 1) * 2, peer: base + (i - 1) * 2 + 1 }));
  const cluster = members.map((m) => `${m.name}=http://127.0.0.1:${m.peer}`).join(",");
  const procs: ChildProcess[] = members.map((m) =>
    spawn(ETCD, [
      "--name", m.name, "--data-dir", join(dir, m.name),
      "--listen-client-urls", `http://127.0.0.1:${m.client}`, "--advertise-client-urls", `http://127.0.0.1:${m.client}`,
      "--listen-peer-urls", `http://127.0.0.1:${m.peer}`, "--initial-advertise-peer-urls", `http://127.0.0.1:${m.peer}`,
      "--initial-cluster", cluster, "--initial-cluster-state", "new", "--initial-cluster-token", "spur-bench",
      "--heartbeat-interval", "50", "--election-timeout", String(DAEMON_ELECTION_TICKS * 50), "--log-level", "error",
    ], { stdio: "ignore" }),
  );
  const stop = async () => {
    for (const p of procs) p.kill("SIGTERM");
    await Promise.all(procs.map((p) => (p.exitCode !== null ? undefined : new Promise((r) => p.once("exit", r)))));
    rmSync(dir, { recursive: true, force: true });
  };
  const until = performance.now() + 30_000;
  while (performance.now() < until) {
    for (const m of members) {
      const url = `http://127.0.0.1:${m.client}`;
      try {
        const res = await fetch(`${url}/v3/maintenance/status`, { method: "POST", body: "{}", signal: AbortSignal.timeout(500) });
        const st = (await res.json()) as { header?: { member_id?: string }; leader?: string };
        if (st.leader !== undefined && st.leader !== "0" && st.leader === st.header?.member_id) return { leaderUrl: url, pids: procs.map((p) => p.pid ?? 0), stop };
      } catch {
        /* not up yet */
      }
    }
    await Bun.sleep(100);
  }
  await stop();
  throw new Error("etcd: no leader within 30 s");
}

let seq = 0;
const value = Buffer.from("x".repeat(1024)).toString("base64");

/** One 1 KB put at `url`; true when acknowledged. */
export async function etcdPut(url: string, timeoutMs = 5000): Promise<boolean> {
  try {
    const key = Buffer.from(`bench/${seq++}`).toString("base64");
    const res = await fetch(`${url}/v3/kv/put`, { method: "POST", body: JSON.stringify({ key, value }), signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return false;
    await res.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}
