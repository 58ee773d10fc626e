/**
 * @module bench/scale/lib/timing
 * Wall and CPU time of whole processes, interleaved probe by probe so that the shared
 * machine's load hits every system alike; medians.
 */
export interface Probe {
  key: string;
  argv: string[];
  env: NodeJS.ProcessEnv;
}

export interface Timed {
  wallMs: number;
  cpuMs: number;
  /** Bytes the command wrote to stdout in its last run (a check that it listed what it should). */
  stdoutBytes: number;
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? (s[(s.length - 1) / 2] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};

function once(p: Probe): { wall: number; cpu: number; bytes: number } {
  const t0 = performance.now();
  const r = Bun.spawnSync(p.argv, { env: p.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const wall = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`${p.argv.join(" ")} exited ${r.exitCode}: ${r.stderr.toString().slice(0, 500)}`);
  return { wall, cpu: Number(r.resourceUsage?.cpuTime.total ?? NaN) / 1000, bytes: r.stdout.byteLength };
}

/** Every probe `runs` times after one warm-up run each, interleaved. */
export function timeInterleaved(probes: Probe[], runs: number): Map<string, Timed> {
  const all = new Map<string, { wall: number; cpu: number; bytes: number }[]>(probes.map((p) => [p.key, []]));
  for (const p of probes) once(p);
  for (let i = 0; i < runs; i++) for (const p of probes) all.get(p.key)?.push(once(p));
  return new Map([...all].map(([k, xs]) => [k, {
    wallMs: median(xs.map((x) => x.wall)), cpuMs: median(xs.map((x) => x.cpu)), stdoutBytes: xs.at(-1)?.bytes ?? 0,
  }]));
}

export const r2 = (x: number): number => Number(x.toFixed(2));
