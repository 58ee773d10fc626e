/**
 * @module bench/scale/lib/spur-cluster
 * A local Spur cluster for a section: `spur up --detach` of dist/spur in a temporary
 * state directory (one controller, 4 node agents, spurrestd), the command links, a fast
 * fill (held jobs through the controller's Submit RPC, 64 in flight, no CLI processes),
 * the controller's resident memory, and `spur down`.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const SPUR_BIN = resolve(import.meta.dir, "../../../dist/spur");

export interface SpurCluster {
  env: NodeJS.ProcessEnv;
  conf: string;
  bin: (command: string) => string;
  ctlPort: number;
  restPort: number;
  /** Submit `n` held jobs (name "fill") through the Submit RPC. */
  fill: (n: number) => Promise<void>;
  ctldRssMiB: () => number;
  /** The controller's JavaScript heap from its /metrics (spur_js_heap_bytes), MiB; undefined from a build without it. */
  ctldHeapMiB: () => Promise<{ used: number; capacity: number; external?: number } | undefined>;
  ctldPid: () => number;
  down: () => void;
}

export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? 0) / 1024;
}

/** A process's CPU time so far (user + system), ms (clock ticks of 10 ms, Linux's USER_HZ of 100). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A process's children (a replica's: its snapshot worker while one builds an image). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return []; // no such file on this kernel, or the process ended
  }
}

/** `pid`'s resident memory and its children's (one that ends meanwhile counts 0). */
export function rssWithChildrenMiB(pid: number): number {
  let total = rssMiB(pid);
  for (const child of childPids(pid)) {
    try {
      total += rssMiB(child);
    } catch {
      /* ended meanwhile */
    }
  }
  return total;
}

/** `bin`: another build than dist/spur (bench/scale/mem-ab.ts compares builds). */
export function startSpur(bin = SPUR_BIN): SpurCluster {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`bun scripts/build-binary.ts\` first`);
  const dir = mkdtempSync(join(tmpdir(), "spur-scale-"));
  const state = join(dir, "cluster");
  const up = spawnSync(bin, ["up", "--detach", "--state-dir", state, "--nodes", "4"], { encoding: "utf8" });
  if (up.status !== 0) throw new Error(`spur up failed: ${up.stderr}`);
  const conf = join(state, "spur.conf");
  const text = readFileSync(conf, "utf8");
  const ctlPort = Number(/ControlPort=(\d+)/.exec(text)?.[1]);
  const restPort = Number(/RestPort=(\d+)/.exec(text)?.[1]);
  const links = join(dir, "bin");
  spawnSync(bin, ["install-links", links]);
  const env = { ...process.env, SPUR_CONF: conf, PATH: `${links}:${process.env.PATH}` };
  const url = `http://127.0.0.1:${ctlPort}/spur.v1.Controller/Submit`;
  const body = JSON.stringify({ spec: { name: "fill", script: "#!/bin/sh\ntrue\n", workDir: "/tmp", hold: true } });
  const fill = async (n: number): Promise<void> => {
    for (let done = 0; done < n; ) {
      const batch = Math.min(64, n - done);
      const answers = await Promise.all(Array.from({ length: batch }, () => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body })));
      for (const a of answers) if (!a.ok) throw new Error(`Submit answered HTTP ${a.status}: ${await a.text()}`);
      done += batch;
    }
  };
  return {
    env, conf, ctlPort, restPort, fill,
    bin: (c) => join(links, c),
    ctldRssMiB: () => rssMiB(Number(readFileSync(join(state, "pids", "spurctld.pid"), "utf8"))),
    ctldHeapMiB: async () => {
      const text = await (await fetch(`http://127.0.0.1:${ctlPort}/metrics`)).text();
      const kind = (k: string) => Number(new RegExp(`^spur_js_heap_bytes\\{kind="${k}"\\} (\\S+)$`, "m").exec(text)?.[1] ?? NaN) / 2 ** 20;
      const used = kind("used");
      const external = kind("external");
      return Number.isNaN(used) ? undefined : { used: Math.round(used), capacity: Math.round(kind("capacity")), ...(Number.isNaN(external) ? {} : { external: Math.round(external) }) };
    },
    ctldPid: () => Number(readFileSync(join(state, "pids", "spurctld.pid"), "utf8")),
    down: () => {
      spawnSync(bin, ["down", "--state-dir", state]);
      rmSync(dir, { recursive: true, force: true }); // a 100k fill leaves ~100 MB of log
    },
  };
}
