/**
 * @module bench/scale
 * Issue 16's figures ("fast at scale") in one run: one JSON object per line,
 * `{metric, value, unit, section, ...conditions}`, Spur's beside its anchor's (the
 * compiled hello-world floor, real Slurm, etcd) measured in the same run.
 *
 * Sections are the modules `bench/scale/*.ts` that export `run` (loaded in name order; a module
 * without it is a helper some section imports, and is skipped; `bench/scale/lib/` is not scanned).
 * Each exports
 * `async function run(opts: {slurm: boolean, emit: (o: object) => void}): Promise<void>`
 * (the `ScaleSection` contract below) and owns its set-up and clean-up. Without `--slurm`
 * the sections skip the Slurm side. A section that throws is reported as
 * `{metric: "section_failed", ...}` and the others still run; the exit status is then 1.
 *
 * Usage: bun bench/scale.ts [--slurm] [--only cli,listing] [--skip ha]
 * (sections read their own knobs from the environment, e.g. SCALE_LISTING_JOBS; see each module).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** What the orchestrator hands each section. */
export interface ScaleOptions {
  /** Measure the Slurm side too (the shared oracle, or a scratch slurmctld the section starts). */
  slurm: boolean;
  /** Print one figure: `{metric, value, unit, ...conditions}`; the orchestrator adds `section`. */
  emit: (o: object) => void;
}

/** The one export a `bench/scale/*.ts` module must have. */
export type ScaleSection = (opts: { slurm: boolean; emit: (o: object) => void }) => Promise<void>;

const SECTION_DIR = join(import.meta.dir, "scale");

function listArg(args: string[], name: string): Set<string> | undefined {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? new Set((args[i + 1] as string).split(",")) : undefined;
}

/** Section names (file names without `.ts`) present now, in name order, filtered by --only / --skip. */
export function sectionNames(files: string[], only?: Set<string>, skip?: Set<string>): string[] {
  return files
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .map((f) => f.slice(0, -3))
    .filter((n) => (only === undefined || only.has(n)) && !(skip?.has(n) ?? false))
    .sort();
}

async function main(args: string[]): Promise<number> {
  const slurm = args.includes("--slurm");
  const names = sectionNames(readdirSync(SECTION_DIR), listArg(args, "--only"), listArg(args, "--skip"));
  let failed = 0;
  const started = performance.now();
  const ran: string[] = [];
  for (const section of names) {
    const emit = (o: object): void => console.log(JSON.stringify({ ...o, section }));
    const t0 = performance.now();
    let mod: { run?: ScaleSection };
    try {
      mod = (await import(join(SECTION_DIR, `${section}.ts`))) as { run?: ScaleSection };
    } catch (e) {
      failed++;
      emit({ metric: "section_failed", value: 1, unit: "", error: (e as Error).stack ?? String(e) });
      continue;
    }
    // A module without run() is a helper another section imports (e.g. a cluster or anchor set-up).
    if (typeof mod.run !== "function") continue;
    ran.push(section);
    try {
      await mod.run({ slurm, emit });
    } catch (e) {
      failed++;
      emit({ metric: "section_failed", value: 1, unit: "", error: (e as Error).stack ?? String(e) });
    }
    emit({ metric: "section_wall_s", value: Number(((performance.now() - t0) / 1000).toFixed(1)), unit: "s" });
  }
  console.log(JSON.stringify({ metric: "scale_wall_s", value: Number(((performance.now() - started) / 1000).toFixed(1)), unit: "s", sections: ran, slurm }));
  return failed === 0 ? 0 : 1;
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)));
