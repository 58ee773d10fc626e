/**
 * @module roles/cli/sgather
 * sgather (Slurm's contribs command): inside an allocation, copy SOURCE from every node of the
 * job to DEST.NODENAME on this (the submit) host, then remove each node's SOURCE unless -k/--keep.
 * It is one srun step with a task per node whose output srun itself writes to DEST.%N here
 * (srun's -o files are written by srun, byte for byte), so no shared file system is assumed.
 * Compression (-C), fanout (-F), preserve (-p) and recursion (-r) are accepted and have no effect.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getoptLong, type OptionRow } from "../../compat/format/getopt.ts";
import { SLURM_VERSION_LINE } from "../../compat/slurm-release.ts";
import { selfExec } from "../self-exec.ts";

const OPTIONS: readonly OptionRow[] = [
  { id: "compress", short: "C", long: ["compress"], arg: "optional" },
  { id: "fanout", short: "F", long: ["fanout"], arg: "required" },
  { id: "force", short: "f", long: ["force"], arg: "none" },
  { id: "keep", short: "k", long: ["keep"], arg: "none" },
  { id: "preserve", short: "p", long: ["preserve"], arg: "none" },
  { id: "recursive", short: "r", long: ["recursive"], arg: "none" },
  { id: "timeout", short: "t", long: ["timeout"], arg: "required" },
  { id: "verbose", short: "v", long: ["verbose"], arg: "none" },
  { id: "version", short: "V", long: ["version"], arg: "none" },
  { id: "help", long: ["help"], arg: "none" },
  { id: "usage", long: ["usage"], arg: "none" },
];

const USAGE = "Usage: sgather [-CfFkprtvV] SOURCE DEST\n";
const HELP = `${USAGE}  -C, --compress[=lib]   accepted, no effect
  -F, --fanout=N         accepted, no effect
  -f, --force            replace existing DEST.NODENAME files
  -k, --keep             keep SOURCE on the nodes (default: remove it once copied)
  -p, --preserve         accepted, no effect
  -r, --recursive        accepted, no effect
  -t, --timeout=SECONDS  accepted, no effect
  -v, --verbose          say what is done
  -V, --version          print the version
`;

/** Run `srun` (this same program under that role) with `args`; its exit status. */
function srun(args: string[], env: NodeJS.ProcessEnv, verbose: boolean): number {
  const [exe, ...pre] = selfExec();
  if (verbose) process.stderr.write(`sgather: srun ${args.join(" ")}\n`);
  const r = spawnSync(exe as string, [...pre, "srun", ...args], { env, stdio: ["ignore", "inherit", "inherit"] });
  return r.status ?? 1;
}

export async function main(argv: string[]): Promise<number> {
  const parsed = getoptLong("sgather", argv, OPTIONS);
  if (parsed.error !== undefined) {
    process.stderr.write(`${parsed.error}\n${USAGE}`);
    return 1;
  }
  const ids = new Set(parsed.options.map((o) => o.id));
  if (ids.has("version")) return void process.stdout.write(`${SLURM_VERSION_LINE}\n`), 0;
  if (ids.has("help") || ids.has("usage")) return void process.stdout.write(ids.has("help") ? HELP : USAGE), 0;
  const [source, dest] = parsed.positionals;
  if (source === undefined || dest === undefined || parsed.positionals.length > 2) {
    process.stderr.write(`sgather: error: SOURCE and DEST are required\n${USAGE}`);
    return 1;
  }
  const env = process.env;
  const nodes = env.SLURM_JOB_NUM_NODES ?? env.SLURM_NNODES;
  if (env.SLURM_JOB_ID === undefined || nodes === undefined) {
    process.stderr.write("sgather: error: must run inside a job allocation (SLURM_JOB_ID is not set)\n");
    return 1;
  }
  const verbose = ids.has("verbose");
  // DEST.%N: srun writes each node's task output to its own file here; a literal % is doubled
  const pattern = `${resolve(process.cwd(), dest).replace(/%/g, "%%")}.%N`;
  const perNode = ["--overlap", `-N${nodes}`, `--ntasks-per-node=1`];
  // the tasks' stderr (a missing SOURCE) must not land in DEST.NODENAME: its own files, shown after
  const errDir = mkdtempSync(join(tmpdir(), "sgather-"));
  const copied = srun([...perNode, "--open-mode=truncate", "-o", pattern, "-e", join(errDir, "%N"), "cat", "--", source], env, verbose);
  for (const name of readdirSync(errDir).sort()) process.stderr.write(readFileSync(join(errDir, name)));
  rmSync(errDir, { recursive: true, force: true });
  if (copied !== 0) {
    process.stderr.write(`sgather: error: copying ${source} from the job's nodes failed (srun exit ${copied})\n`);
    return copied;
  }
  if (ids.has("keep")) return 0;
  return srun([...perNode, "rm", "-f", "--", source], env, verbose);
}
