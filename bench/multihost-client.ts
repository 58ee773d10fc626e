/**
 * @module bench/multihost-client
 * The client half of bench/multihost.ts, run on one host (inside its namespaces for
 * `spur up --netns`, plainly for the one-host anchor), so that entering the namespace is
 * paid once, not per call. Prints one JSON object: per-call CLI latency of `squeue` and
 * `sbatch --hold` (p50, ms), the cost of one auth/spur credential from the local daemon
 * (in process, when a socket is given) or from munged (--munge) and submissions per second with --concurrency
 * sbatch loops for --seconds.
 * Usage: bun bench/multihost-client.ts BIN [--calls 15] [--concurrency 4] [--seconds 3] [--socket PATH | --munge]
 */
import { spawn, spawnSync } from "node:child_process";
import { requestCredential } from "../src/net/auth/authd-client.ts";

const [bin = "dist/spur", ...rest] = process.argv.slice(2);
const opt = (name: string, dflt: string): string => (rest.includes(name) ? rest[rest.indexOf(name) + 1] ?? dflt : dflt);
const CALLS = Number(opt("--calls", "15"));
const CONCURRENCY = Number(opt("--concurrency", "4"));
const SECONDS = Number(opt("--seconds", "3"));
const SOCKET = opt("--socket", "");
const MUNGE = rest.includes("--munge");

const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

function timeCli(args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    const r = spawnSync(bin, args, { stdio: ["ignore", "ignore", "pipe"] });
    if (r.status !== 0) throw new Error(`${args.join(" ")}: ${r.stderr}`);
    times.push(performance.now() - t);
  }
  return p50(times);
}

function runOnce(args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { stdio: "ignore" });
    child.on("exit", (code) => resolve(code === 0));
  });
}

async function submitRate(): Promise<number> {
  const end = performance.now() + SECONDS * 1000;
  let done = 0;
  const loop = async () => {
    while (performance.now() < end) if (await runOnce(["sbatch", "--hold", "--wrap", "true"])) done++;
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  return done / ((performance.now() - start) / 1000);
}

async function credentialMs(): Promise<number | undefined> {
  let one: () => Promise<unknown>;
  if (SOCKET !== "") one = () => requestCredential(SOCKET, "slurmctld");
  else if (MUNGE) {
    const m = await import("../src/net/munge/auth-munge.ts");
    const info = m.parseAuthInfo(undefined);
    one = async () => {
      const r = await m.mungeCredential(info);
      if (!r.ok) throw new Error(r.error.message);
    };
  } else return undefined;
  await one();
  const times: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await one();
    times.push(performance.now() - t);
  }
  return p50(times);
}

const out = {
  squeue_ms: timeCli(["squeue"]),
  sbatch_ms: timeCli(["sbatch", "--hold", "--wrap", "true"]),
  credential_ms: await credentialMs(),
  submits_per_s: await submitRate(),
};
console.log(JSON.stringify(out));
