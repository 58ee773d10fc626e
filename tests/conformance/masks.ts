/**
 * @module tests/conformance/masks
 * EVERY mask the conformance suite applies, in one list, each with its reason.
 * A mask hides only what legitimately differs between the real Slurm cluster
 * and the Spur cluster (or between two runs of the same cluster). Anything not
 * masked here is compared byte for byte. docs/conformance.md lists these too.
 */
import { type MapState, type Mask, type SideContext, type Span, jobPlaceholder, maskJobCell, regexMask, regexSpans, tableMask } from "./mask-engine.ts";

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Longest first, so a conf path under the state dir is named as the conf, not the dir. */
function pathMask(): Mask {
  return {
    id: "paths",
    reason:
      "each side runs in its own directories: the oracle's $ORACLE_RUN (default /tmp/slurm-oracle) and the job directory under it, "
      + "and Spur's temporary state and work directories; configuration file paths (slurm.conf vs spur.conf) differ by design",
    find(text, ctx: SideContext) {
      const named: [string, string][] = [
        ...ctx.confPaths.map((p): [string, string] => [p, "<CONF>"]),
        [ctx.workDir, "<WORK>"],
        [ctx.stateDir, "<STATE>"],
      ];
      named.sort((a, b) => b[0].length - a[0].length);
      return named.flatMap(([p, ph]) => regexSpans(text, new RegExp(escape(p), "g"), ph));
    },
  };
}

const JOB = (v: string, st: Parameters<typeof jobPlaceholder>[1]) => jobPlaceholder(v, st);
const JOB_CELL = (v: string, st: Parameters<typeof jobPlaceholder>[1]) => (v === "0" || v === "N/A" ? v : maskJobCell(v, st));

/** A duration value (1:23, 01:02:03, 2-00:00:00, 12.5) becomes <DUR>; anything else stays. */
const DUR = (v: string) => (/^\d[\d:.-]*$/.test(v) ? "<DUR>" : v);

/**
 * Job variables that only one of the two Slurm versions sets in a job's environment
 * (../shared/slurm-surface/job-env.tsv is 26.x; the oracle is 22.05). Spur follows the
 * table, so these lines can never agree; every other variable is still compared.
 */
const ONLY_26 = ["SLURM_JOB_START_TIME", "SLURM_JOB_END_TIME", "SLURM_JOB_GROUP", "SLURM_JOB_EXCLUSIVE", "SLURM_JOB_OVERSUBSCRIBE", "SLURM_TRES_PER_TASK"];
const ONLY_22 = [
  "SLURM_NODE_ALIASES", "SLURM_WORKING_CLUSTER", "SLURM_TOPOLOGY_ADDR", "SLURM_TOPOLOGY_ADDR_PATTERN",
  "SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0", "SLURM_GPUS_PER_TASK",
];
const VERSION_ENV_LINE = new RegExp(`^(?:\\d+: )?(?:(?:${[...ONLY_26, ...ONLY_22].join("|")})=[^\\n]*|SLURM_STEP_ID=-5)(?:\\n|$)`, "m");

/** Ordered: earlier masks claim their spans first (table cells before free-text rules). */
export const MASKS: Mask[] = [
  pathMask(),
  regexMask(
    "version-only-env",
    "job variables set by only one of Slurm 22.05 (the oracle) and 26.x (the tables Spur follows): 26.x adds SLURM_JOB_START_TIME/END_TIME/GROUP/EXCLUSIVE/OVERSUBSCRIBE, "
      + "SLURM_TRES_PER_TASK and SLURM_STEP_ID=-5 in batch scripts; 22.05 also sets SLURM_NODE_ALIASES, SLURM_WORKING_CLUSTER, SLURM_TOPOLOGY_ADDR(_PATTERN) without "
      + "topology/tree, SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0 and SLURM_GPUS_PER_TASK (input only in 26.x). Whole lines (with an srun -l label) are dropped on both sides",
    VERSION_ENV_LINE,
    "",
  ),
  {
    id: "batch-umask",
    reason:
      "SLURM_UMASK in a batch script's environment: the 26.x table sets it there (the submitter's umask), 22.05 leaves it out; "
      + "dropped only from a batch environment (SLURM_JOB_ID without SLURM_STEPID), so srun tasks still compare it",
    find(text) {
      if (!/^SLURM_JOB_ID=/m.test(text) || /SLURM_STEPID=/.test(text)) return [];
      return regexSpans(text, /^SLURM_UMASK=[^\n]*(?:\n|$)/m, "");
    },
  },
  regexMask(
    "version-banner",
    "version strings: the oracle is Debian's slurm-wlm 22.05.8, Spur has its own version; the banner word (slurm-wlm / slurm / spur) goes with it",
    [/^(?<v>(?:slurm-wlm|slurm|spur) \d+\.\d+\.\d+\S*)$/m, /\bVersion=(?<v>\S+)/, /\bSLURM_VERSION\s+= (?<v>\S+)/],
    "<VERSION>",
  ),
  tableMask("table-job-ids", "job ids are assigned per cluster: compared as <J1>, <J2>, ... in order of appearance (array index and step suffixes kept)", {
    columns: { JOBID: JOB_CELL, JobID: JOB_CELL, JobIDRaw: JOB_CELL, ARRAY_JOB_ID: JOB_CELL },
  }),
  tableMask("table-durations", "elapsed and remaining times depend on when the command ran (words such as UNLIMITED or N/A are kept)", {
    columns: { TIME: DUR, TIME_LEFT: DUR, Elapsed: DUR, ElapsedRaw: DUR, CPUTime: DUR, TotalCPU: DUR },
  }),
  regexMask("dates", "wall-clock dates and times (ISO, ctime and epoch seconds) differ on every run", [
    /(?<v>\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)/,
    /(?<v>\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d:\d\d \d{4})/,
    /(?<![\d.])(?<v>1[7-9]\d{8})(?![\d.])/,
  ], "<DATE>"),
  regexMask("run-time", "a running job's elapsed time (scontrol RunTime) depends on when the command ran", /\bRunTime=(?<v>[\d:-]+)/, "<DUR>"),
  regexMask("job-ids", "job ids in free text (messages, key=value, environment, default slurm-%j.out names): per-cluster numbering, compared in order of appearance", [
    /\b(?:[Jj]ob|JOB)(?:[ _]?(?:[Ii]d|ID))?(?:=| id | )(?<v>\d+)\b/,
    /\bSLURM_(?:ARRAY_)?JOB_?ID=(?<v>\d+)/,
    /\bNEXT_JOB_ID\s+= (?<v>\d+)/,
    /\b(?:ArrayJobId|HetJobId|StepId)=(?<v>\d+)/,
    /\ballocation (?<v>\d+)\b/,
    /(?<=\bafter\w*:(?:\d+(?:_(?:\d+|\*))?(?:\(\w+\))?[:,])*)(?<v>\d+)/,
    /(?<=\bslurm-)(?<v>[1-9]\d*)(?=(?:_\d+)?\.(?:out|err)\b)/,
  ], JOB),
  regexMask(
    "row-job-ids",
    "a job id leading a table row without a header (squeue -h, sacct -n, --parsable): per-cluster numbering",
    /^ *(?<v>\d+)(?=(?:_\d+|_\[[^\]\n]*\])?(?:\.\w+)?(?:[|; ]|$))/m,
    JOB,
  ),
  {
    id: "declared-ids-in-file-names",
    reason:
      "output file names built from %j/%A carry the per-cluster job id; only ids the scenario declares (CapStep.ids) are replaced, "
      + "only inside .out/.err names and not after a letter, digit or _ (array indices, node names stay); zero padding shows as <ID/width>",
    find(text, _ctx, st) {
      const ids = [...(st.fileIds ?? [])].filter((v) => /^\d+$/.test(v));
      if (ids.length === 0) return [];
      const alt = ids.sort((a, b) => b.length - a.length).join("|");
      const re = new RegExp(`(?<![\\w])(?<v>0*(?:${alt}))(?![\\d])`);
      const spans: Span[] = [];
      for (const m of text.matchAll(/[\w%.\/-]+\.(?:out|err)\b/g)) {
        const at = m.index ?? 0;
        const pad = (v: string, s2: MapState) => {
          const ph = jobPlaceholder(String(Number(v)), s2);
          return v.startsWith("0") ? `${ph.slice(0, -1)}/${v.length}>` : ph;
        };
        for (const d of regexSpans(m[0], re, pad)) spans.push({ ...d, start: d.start + at, end: d.end + at });
      }
      return spans;
    },
  },
  regexMask("pids", "process ids of the job's processes and the submitting shell's session", [/\bSLURM_TASK_PID=(?<v>\d+)/, /\bAllocNode:Sid=[^:\s]+:(?<v>\d+)/, /\bSrunHost:Pid=[^:\s]+:(?<v>\d+)/], "<PID>"),
  regexMask("ports", "TCP ports are picked per cluster (the oracle's fixed 6817/1700x, Spur's free ports); the working-cluster triple also carries Slurm's protocol version and plugin id", [
    /\bSLURM_(?:SRUN_COMM|STEP_LAUNCHER)_PORT=(?<v>\d+)/,
    /\bPort=(?<v>\d+)/,
    /\bSLURM_WORKING_CLUSTER=[^:\s]+:[^:\s]+:(?<v>\d+:\d+:\d+)/,
  ], "<PORT>"),
  regexMask("scheduler", "which of Slurm's two schedulers (main or backfill) happened to start a job varies from run to run", /\bScheduler=(?<v>Main|Backfill)\b/, "<SCHED>"),
  regexMask("srun-task-node", "the node an unpinned srun (golden 027 `srun false`) lands on varies on the oracle from run to run (its golden file says `varies: node name`); the report line's shape is still compared", /^srun: error: (?<v>n\d+): task \d+:/m, "<NODE>"),
  regexMask("host-measurements", "the node's measured load and free memory change from second to second", [/\bCPULoad=(?<v>[\d.]+)/, /\bFreeMem=(?<v>\d+)/], "<MEASURED>"),
];

/**
 * JSON outputs (--json) are compared as a skeleton of keys and value types
 * (the issue asks for "same keys and types"): values of every key differ with
 * ids, times, pids and versions, so none is compared.
 */
export const JSON_SKELETON_REASON = "--json values carry ids, times, pids and versions: compared as keys and value types only";
