/**
 * @module compat/sbcast-args
 * sbcast's command line and SBCAST_* environment, read as Slurm 22.05's
 * sbcast reads them (getopt "C::fF:j:ps:t:vV" plus long names; checked on the
 * oracle): options first, then exactly two names ("Need two file names, have N
 * names"), then the job (-j, else SLURM_JOB_ID: "Need a job id ..."), then the
 * destination made absolute against the working directory. Pure: the shell
 * (roles/cli/sbcast.ts) passes argv, the environment and the working directory.
 */
import { getoptLong, type OptionRow } from "./format/getopt.ts";

export interface SbcastParams {
  source: string;
  /** Absolute destination path on every node. */
  dest: string;
  /** As given: "12" or "12.3" (shown in lookup errors); `jobId` is its number (0 when not one). */
  jobText: string;
  jobId: number;
  stepId: number | undefined;
  force: boolean;
  preserve: boolean;
  /** Bytes per block (0: sbcast's default). */
  blockBytes: number;
  /** Message timeout (0: the default). */
  timeoutSec: number;
  fanout: number;
  verbose: number;
}

export type SbcastArgs =
  | { kind: "run"; params: SbcastParams; warnings: string[] }
  | { kind: "exit"; stdout: string; stderr: string; exitCode: number };

/** The compression names 22.05 knows (-C, --compress, SBCAST_COMPRESS); others are refused with a warning. */
const COMPRESSION = new Set(["", "lz4", "none", "zlib"]);
const TRY_HELP = 'Try "sbcast --help" for more information\n';
const USAGE = "Usage: sbcast [--exclude] [-CfFjpvV] [--send-libs] SOURCE DEST\n";

/** Spur's own help text (Slurm's is not copied): the options sbcast takes. */
const HELP = `Usage: sbcast [OPTIONS] SOURCE DEST
  -C, --compress[=lib]  compress the file in transit (accepted; Spur sends it as is)
  --exclude=<paths>     (accepted, no effect: --send-libs is not supported)
  -f, --force           replace the destination file when it exists
  -F, --fanout=num      nodes written in parallel
  -j, --jobid=#[.#]     the job (and step) whose nodes get the file
  -p, --preserve        keep the source's modification and access times
  --send-libs[=yes|no]  (accepted, no effect)
  -s, --size=num[k|m]   block size in bytes
  -t, --timeout=secs    time allowed for each block
  -v, --verbose         say what is done
  -V, --version         print version information and exit

Help options:
  --help                show this help message
  --usage               display brief usage message
`;

/** sbcast's size reading: a number with k or m; anything else is refused (and ignored: 0). */
function mapSize(text: string, warn: (line: string) => void): number {
  const m = /^(\d+)([kKmM]?)$/.exec(text);
  if (m === null) {
    warn("size specification is invalid, ignored\n");
    return 0;
  }
  const unit = (m[2] ?? "").toLowerCase();
  return Number(m[1]) * (unit === "k" ? 1024 : unit === "m" ? 1024 * 1024 : 1);
}

const OPTIONS: readonly OptionRow[] = [
  { id: "compress", short: "C", long: ["compress"], arg: "optional" },
  { id: "exclude", long: ["exclude"], arg: "required" },
  { id: "fanout", short: "F", long: ["fanout"], arg: "required" },
  { id: "force", short: "f", long: ["force"], arg: "none" },
  { id: "jobid", short: "j", long: ["jobid"], arg: "required" },
  { id: "send-libs", long: ["send-libs"], arg: "optional" },
  { id: "preserve", short: "p", long: ["preserve"], arg: "none" },
  { id: "size", short: "s", long: ["size"], arg: "required" },
  { id: "timeout", short: "t", long: ["timeout"], arg: "required" },
  { id: "verbose", short: "v", long: ["verbose"], arg: "none" },
  { id: "version", short: "V", long: ["version"], arg: "none" },
  { id: "help", long: ["help"], arg: "none" },
  { id: "usage", long: ["usage"], arg: "none" },
];

/** sbcast's arguments (without the program name) in `env`, run in `cwd`; `version` is what -V prints. */
export function parseSbcastArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, cwd: string, version: string): SbcastArgs {
  const warnings: string[] = [];
  const warn = (line: string) => warnings.push(line);
  const compress = (name: string) => {
    if (!COMPRESSION.has(name.toLowerCase())) warn(`sbcast: error: Compression type '${name}' unknown, disabling compression support.\n`);
  };
  const int = (text: string | undefined) => Number.parseInt(text ?? "", 10) || 0;
  const p = { force: env.SBCAST_FORCE !== undefined, preserve: env.SBCAST_PRESERVE !== undefined, blockBytes: 0, timeoutSec: 0, fanout: 0, verbose: 0 };
  if (env.SBCAST_COMPRESS !== undefined) compress(env.SBCAST_COMPRESS);
  if (env.SBCAST_FANOUT !== undefined) p.fanout = int(env.SBCAST_FANOUT);
  if (env.SBCAST_SIZE !== undefined) p.blockBytes = mapSize(env.SBCAST_SIZE, warn);
  if (env.SBCAST_TIMEOUT !== undefined) p.timeoutSec = int(env.SBCAST_TIMEOUT);
  const fail = (stderr: string): SbcastArgs => ({ kind: "exit", stdout: "", stderr: warnings.join("") + stderr, exitCode: 1 });
  const parsed = getoptLong("sbcast", argv, OPTIONS);
  let jobText: string | undefined;
  for (const o of parsed.options) {
    if (o.id === "version") return { kind: "exit", stdout: `${version}\n`, stderr: "", exitCode: 0 };
    if (o.id === "help") return { kind: "exit", stdout: HELP, stderr: "", exitCode: 0 };
    if (o.id === "usage") return { kind: "exit", stdout: USAGE, stderr: "", exitCode: 0 };
    if (o.id === "compress") compress(o.value ?? "");
    else if (o.id === "force") p.force = true;
    else if (o.id === "fanout") p.fanout = int(o.value);
    else if (o.id === "jobid") jobText = o.value ?? "";
    else if (o.id === "preserve") p.preserve = true;
    else if (o.id === "size") p.blockBytes = mapSize(o.value ?? "", warn);
    else if (o.id === "timeout") p.timeoutSec = int(o.value);
    else if (o.id === "verbose") p.verbose += 1;
  }
  if (parsed.error !== undefined) return fail(`${parsed.error}\n${TRY_HELP}`);
  const names = parsed.positionals;
  if (names.length !== 2) return fail(`Need two file names, have ${names.length} names\n${TRY_HELP}`);
  const job = jobText ?? env.SLURM_JOB_ID;
  if (job === undefined) return fail("sbcast: error: Need a job id to run this command.  Run from within a Slurm job or use the --jobid option.\n");
  const [source = "", target = ""] = names;
  const dest = target.startsWith("/") ? target : `${cwd.replace(/\/$/, "")}/${target}`;
  if (dest.endsWith("/")) return fail("sbcast: error: Target filename cannot be a directory.\n");
  const m = /^(\d+)(?:\.(\d+))?/.exec(job);
  const params: SbcastParams = { source, dest, jobText: m === null ? "0" : job, jobId: Number(m?.[1] ?? 0), stepId: m?.[2] === undefined ? undefined : Number(m[2]), ...p };
  return { kind: "run", params, warnings };
}
