/**
 * @module tests/differential/known
 * Differences between real Slurm 22.05 and Spur that the differential tester accepts,
 * each with its reason, as the scenario suite's known differences are. An entry names
 * the field(s) it covers and, if it is about one option (or a query tool), that option:
 * a difference in a case is known when an entry matches its field and the case uses
 * the entry's option. Anything else is a new difference and fails CI.
 */
import { optionsFor } from "../../src/compat/options/table.ts";
import type { Case } from "./generator.ts";
import { ORACLE_LACKS, isPyxis } from "./generator.ts";
import type { FieldDiff } from "./compare.ts";

export interface KnownDifference {
  /** Fields covered ("stderr", "job.Power", /^squeue\./ ...). */
  field: RegExp;
  /** Only in cases that use this sbatch option (long name) or this query tool ("query:squeue"). */
  option?: string | ((name: string) => boolean);
  /** Only when this holds for the case and the difference. */
  when?: (c: Case, d: FieldDiff) => boolean;
  reason: string;
}

const ANY = /./;

const support = new Map(optionsFor("sbatch").map((d) => [d.name, d.support]));
const warned = (n: string): boolean => support.get(n) === "warn";

/** Spur's "not supported by Spur and was ignored" lines, removed. */
const withoutSpurWarnings = (t: string): string => t.replace(/^sbatch: warning: \S+ is not supported by Spur and was ignored\n/gm, "");

/** Spur's note that --mem-bind is exported but memory is not bound (compat/options/apply-tuning.ts), removed. */
const withoutMemBindNote = (t: string): string => t.replace(/^sbatch: warning: --mem-bind: Spur does not bind [^\n]*\n/m, "");

/** A --test-only estimate with the node names and processor count taken out. */
const estimateShape = (t: string): string => t.replace(/using \d+ processors on nodes \S+ in partition/g, "using N processors on nodes X in partition");

/** -v's plugin load lines (select/cons_tres, accounting_storage/slurmdbd, ...) and -vv's debug lines taken out (sbatch, scancel). */
const withoutPluginLog = (t: string): string => t.replace(/^[a-z]+: [a-z_]+\/\S+: .*\n/gm, "").replace(/^[a-z]+: debug[0-9]?: .*\n/gm, "");

/** -v's lines taken out: sbatch's "defined options" dump and the plugin and debug lines. */
const withoutVerbose = (t: string): string =>
  withoutPluginLog(t.replace(/^sbatch: defined options\n(?:sbatch: .*\n)*?sbatch: end of defined options\n/m, ""));

/** Options of the case, and "query:<tool>" for query cases. */
export function caseOptions(c: Case): string[] {
  return c.kind === "query" ? [`query:${c.tool}`] : c.options.map((o) => o.name);
}

const SUBMIT = /^(exit|stdout|stderr|job|job\..*|squeue(\..*)?|sacct(\..*)?)$/;

/** Spur bugs and gaps found by the tester, each scoped to its option (issue 15). */
const SPUR_GAPS: KnownDifference[] = [
  {
    // the refusal itself (exit, streams, whether a job exists), not the fields of a job both sides made
    field: /^(exit|stdout|stderr|job)$/,
    option: warned,
    when: (_c, d) => d.field !== "stderr" || /is not supported by Spur and was ignored/.test(d.spur),
    reason: "Spur lacks: an option it ignores with a warning (support \"warn\") is checked only by the value checks of compat/options/ignored-checks.ts; "
      + "22.05 refuses more that only its controller can judge (--batch=bogus, --core-spec without AllowSpecResourcesUsage, ...)",
  },
  {
    field: /^stderr$/,
    option: "mem-bind",
    when: (_c, d) => withoutSpurWarnings(withoutMemBindNote(d.spur)) === d.slurm,
    reason: "Spur lacks: NUMA memory binding for --mem-bind (it exports SLURM_MEM_BIND* as 22.05 does and says the binding is not done; the oracle, task/none, binds nothing and says nothing)",
  },
  {
    field: SUBMIT,
    option: "exclusive",
    when: (c) => c.kind === "sbatch" && c.options.some((o) => o.name === "exclusive" && /^(mcs|topo)$/i.test(o.value ?? "")),
    reason: "Spur lacks: --exclusive=mcs/topo (it warns and allocates whole nodes; 22.05 records OverSubscribe=MCS and refuses topo, \"Invalid --exclusive specification\"). --exclusive=user is done (sched/plan/user-exclusive.ts)",
  },
];

export const KNOWN: KnownDifference[] = [
  ...SPUR_GAPS,
  {
    field: /^stderr$/,
    option: "verbose",
    when: (_c, d) => estimateShape(withoutPluginLog(d.slurm)) === estimateShape(withoutSpurWarnings(d.spur)),
    reason: "Spur lacks: sbatch -v/-vv load no plugins to report (22.05: select/cons_tres, accounting_storage/slurmdbd with -M, ...) and log no debug lines; "
      + "the \"defined options\" list is compared (compat/options/defined-options.ts; seeds 12609, 12626, 9365)",
  },
  {
    field: /^stderr$/,
    option: "verbose",
    when: (_c, d) => !d.spur.includes("defined options") && /(error|allocation failure): /.test(d.spur) && estimateShape(withoutVerbose(d.slurm)) === estimateShape(withoutSpurWarnings(d.spur)),
    reason: "Spur lacks: a refusal Spur makes in its client where 22.05's controller makes it comes before -v's \"defined options\" list, which is then not printed",
  },
  {
    field: /^stderr$/,
    option: "query:scancel",
    when: (_c, d) => d.slurm !== withoutVerbose(d.slurm) && withoutVerbose(d.slurm) === d.spur,
    reason: "scancel -v on 22.05 reports loading its select plugins (select/cons_tres, select/linear, ...); Spur has none to load (seed 12898)",
  },
  {
    field: /^(exit|stderr)$/,
    option: "test-only",
    when: (c, d) => c.kind === "sbatch" && c.options.some((o) => o.name === "nodes" && o.value === "0") && (d.field !== "stderr" || /using 0 processors on nodes  in/.test(d.slurm)),
    reason: "22.05's will-run test answers -N 0 with an empty placement (\"using 0 processors on nodes  in partition debug\") while its submission "
      + "refuses it (Node count specification invalid); Spur refuses both (seed 13417)",
  },
  {
    field: /^sacct\.Reason$/,
    option: "query:scontrol",
    when: (_c, d) => /^(None|JobHeldUser|JobHeldAdmin)$/.test(d.slurm) && /^JobHeld(User|Admin)$/.test(d.spur),
    reason: "22.05's slurmdbd keeps the reason of the job's last accounting update, and scontrol hold/uhold/release sends none: a held job "
      + "held again by root keeps Reason=JobHeldUser (or None) in sacct while scontrol shows JobHeldAdmin (oracle, seed 12475); Spur's record follows the job's reason",
  },
  {
    field: /^(exit|stdout|stderr|job)$/,
    option: "nodes",
    when: (c) => c.kind === "sbatch" && c.options.some((o) => o.name === "nodes" && /[,:]/.test(o.value ?? "")),
    reason: "22.05 vs 26.x table: 26.x takes a list of allowed sizes (--nodes=<size_string>, sbatch-options.tsv) where 22.05 says "
      + "'\"1,2\" is not a valid node count' (exit 255); Spur lacks size lists and refuses them as not supported (compat/options/spec-syntax.ts; seed 12074)",
  },
  {
    field: /^(exit|stdout|stderr|job)$/,
    option: (n) => n === "gres" || n.startsWith("gpus"),
    when: (c) => c.kind === "sbatch" && c.options.some((o) => (o.name === "gres" || o.name.startsWith("gpus")) && /(^|:)-\d/.test(o.value ?? "")),
    reason: "22.05 reads a GPU count as unsigned, so --gpus=-1 or --gres=gpu:-1 makes a job (TresPerJob=gres:gpu:-1, TRES gres/gpu=1) that can never start "
      + "(--test-only: 'Requested node configuration is not available'); Spur refuses a negative count at submission as an invalid GRES specification (seed 12086)",
  },
  {
    field: /^(job\.(JobState|Reason|StartTime|EndTime|RunTime|Deadline)|squeue(\..*)?|sacct(\..*)?)$/,
    option: "deadline",
    when: (c) => c.kind === "sbatch" && c.options.some((o) => o.name === "deadline" && /^now/i.test(o.value ?? "")),
    reason: "timing on the shared oracle: --deadline=now[+N] falls on the submission's own second, so whether it has passed when the record is read (held job cancelled with reason DeadLine, or still pending) depends on the second boundary on each side (seed 14 came out both ways in CI runs)",
  },
  {
    field: /^(exit|stdout|stderr|job)$/,
    option: "deadline",
    when: (c, d) => c.kind === "sbatch" && c.options.some((o) => o.name === "deadline" && /^now$/i.test(o.value ?? ""))
      && (d.field !== "stderr" || /Requested time limit is invalid/.test(d.slurm + d.spur)),
    reason: "timing: --deadline=now is the submission's own second, and a controller that reads it in the next second refuses it as past (\"Requested time limit is invalid\"), 22.05 and Spur alike (seed 14 on the oracle, 2026-12-05)",
  },
  {
    field: ANY,
    option: (n) => ORACLE_LACKS.has(n),
    reason: "22.05 vs 26.x table: the option is in Slurm 26.x's table (which Spur follows) but 22.05 does not know it (unrecognized option)",
  },
  {
    field: ANY,
    option: (n) => support.get(n) === "error",
    reason: "Spur refuses the option (support \"error\" in the option table): honouring it is not done, and ignoring it would change who runs the job or what it does",
  },
  {
    field: /^stderr$/,
    when: (_c, d) => withoutSpurWarnings(d.spur) === d.slurm,
    reason: "Spur warns that an option it does not implement (support \"warn\" in the option table) was ignored; Slurm is silent",
  },
  {
    field: /^(job|squeue)\./,
    option: warned,
    reason: "an option Spur accepts with a warning and ignores leaves no trace in the job record (e.g. Network=, MailType=)",
  },
  {
    field: /^sacct\./,
    option: warned,
    // only the accounting field named after the ignored option (sacct McsLabel for --mcs-label)
    when: (c, d) => c.kind === "sbatch" && c.options.some((o) => warned(o.name) && d.field.toLowerCase().replace(/[^a-z]/g, "").endsWith(o.name.replace(/-/g, ""))),
    reason: "an option Spur accepts with a warning and ignores leaves no trace in its accounting field either (seed 71: sacct McsLabel for --mcs-label)",
  },
  {
    field: /^squeue\.TRES_PER_NODE$/,
    when: (_c, d) => d.slurm.replace(/gres:/g, "gres/") === d.spur,
    reason: "22.05 vs 26.x: the TRES-per-node string names a GRES gres:gpu in 22.05 and gres/gpu in 26.x (which Spur follows)",
  },
  {
    field: /^stderr$/,
    option: "test-only",
    when: (_c, d) => d.slurm !== d.spur && estimateShape(d.slurm) === estimateShape(withoutSpurWarnings(d.spur)),
    reason: "a --test-only estimate names the nodes the job would get now: on the shared oracle other users' jobs hold some nodes, on Spur's cluster none",
  },
  {
    field: SUBMIT,
    option: "requeue",
    when: (c) => c.kind === "sbatch" && c.options.some((o) => o.name === "requeue" && o.value !== undefined),
    reason: "22.05 vs 26.x table: --requeue takes no argument in 22.05 (\"option '--requeue' doesn't allow an argument\"); 26.x's is --requeue[=expedite] (slurm-surface)",
  },
  {
    field: /^(exit|stdout|stderr|job)$/,
    option: "dependency",
    when: (_c, d) => d.field !== "stderr" || /Job dependency problem/.test(d.spur),
    reason: "22.05 vs 26.x table: a dependency on a job id the controller does not know is refused at submission in 26.x (dependency-and-array.md); "
      + "22.05 accepts it (afterok:1(unfulfilled)); as the scenario suite's golden 083",
  },
  {
    field: /^stdout$/,
    option: "usage",
    reason: "22.05 vs 26.x: --usage lists each version's options",
  },
  {
    field: ANY,
    option: isPyxis,
    reason: "pyxis's container options are a SPANK plugin; the oracle has no pyxis, so 22.05 says unrecognized option",
  },
];

/** The entry that covers a difference in a case, if any. */
export function knownFor(c: Case, d: FieldDiff, list: readonly KnownDifference[] = KNOWN): KnownDifference | undefined {
  const opts = caseOptions(c);
  return list.find((k) => {
    if (!k.field.test(d.field)) return false;
    if (k.option !== undefined) {
      const test = k.option;
      if (!opts.some((o) => (typeof test === "string" ? o === test : test(o)))) return false;
    }
    return k.when === undefined || k.when(c, d);
  });
}
