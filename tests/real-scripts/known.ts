/**
 * @module tests/real-scripts/known
 * Differences between real Slurm 22.05 and Spur on the real-scripts corpus that are
 * accepted, each with its reason (as tests/differential/known.ts): an entry names the
 * field(s) it covers and, optionally, the cases (file name or command text) and a
 * condition on the values. Anything else is a new difference and fails the project.
 */
import type { FieldDiff } from "../differential/compare.ts";

export interface KnownReal {
  field: RegExp;
  /** Script file name or command text it applies to (all cases when absent). */
  cases?: RegExp;
  when?: (d: FieldDiff) => boolean;
  reason: string;
}

export const KNOWN_REAL: readonly KnownReal[] = [
  {
    field: /^squeue(#\d+)?\.TRES_PER_NODE$/,
    when: (d) => d.slurm.replace(/gres:/g, "gres/") === d.spur,
    reason: "22.05 vs 26.x: squeue's TRES-per-node names a GRES gres:gpu in 22.05 and gres/gpu in 26.x (which Spur follows), as in the differential tester",
  },
  {
    field: /^sacct(#\d+)?\.AssocID$/,
    when: (d) => /^\d+$/.test(d.slurm) && /^\d+$/.test(d.spur),
    reason: "slurmdbd's association ids follow the order associations were created in the shared oracle's database (srpa/root is 8 there, 4 on Spur's cluster)",
  },
  {
    field: /^sacct(#\d+)?\.Start$/,
    when: (d) => d.slurm === "None" && d.spur === "<DATE>",
    reason: "timing on the oracle: a held job cancelled after slurmdbd has its record keeps Start=None; cancelled before, Start=End (golden 110, which Spur follows); "
      + "the runner waits for the record, so the oracle shows None (as NOT_COMPARED in tests/differential/compare.ts)",
  },
  {
    field: /^stdout$/,
    cases: /^sacct .*\bstart\b/i,
    when: (d) => d.slurm.replace(/\|None\|/, "|<DATE>|") === d.spur,
    reason: "the same timing race for sacct Start of a held job cancelled pending (None on the oracle, Start=End on Spur)",
  },
  {
    field: /^stderr$/,
    when: (d) => d.slurm === "" && /^sbatch: warning: --mem-bind: Spur does not bind [^\n]*\n?$/.test(d.spur),
    reason: "Spur lacks: NUMA memory binding for --mem-bind (it exports SLURM_MEM_BIND* as 22.05 does and says the binding is not done; "
      + "the oracle binds nothing and says nothing), as tests/differential/known.ts lists",
  },
  {
    field: /^(exit|stderr|stdout)$/,
    cases: /^scontrol .*--json/,
    reason: "22.05 vs 26.x: scontrol --json came after 22.05 (\"unrecognized option '--json'\" there); Spur follows current Slurm and prints "
      + "the data_parser shape, as squeue and sinfo do",
  },
  {
    field: /^stdout$/,
    cases: /^sinfo -N -l$/,
    when: (d) => d.slurm.split("\n").sort().join("\n") === d.spur.split("\n").sort().join("\n"),
    reason: "the order of one node's lines in several partitions: 22.05's own goldens show debug before gpu on an idle oracle (004) and gpu "
      + "before debug on a busy one (057), so it follows the oracle's state; Spur lists them in slurm.conf's partition order",
  },
  {
    field: /^job(#\d+)?\.NumNodes$/,
    when: (d) => d.slurm === "2" && d.spur === "1",
    reason: "the same load-dependent estimate as squeue NODES below, in scontrol's NumNodes: 22.05 records -n1 -c2 as 2 nodes while the shared "
      + "oracle runs other helpers' jobs (5 of 5 submissions with 121 jobs queued) and 1 on an idle one",
  },
  {
    field: /^squeue(#\d+)?\.NODES$/,
    reason: "22.05's pending node count for -n1 -c2 is its select test's at submission: 2 on some submissions, 1 on others on the same idle oracle "
      + "(tests/unit/sched/job-layout.test.ts NUMNODES_VARIES); Spur lists the stable estimate (1). The rule for the rest (max of -N's minimum and "
      + "the estimate, not capped by -N's maximum) is Spur's too",
  },
  {
    field: /^(job|squeue|sacct)(#\d+)?\.(NumCPUs|TRES|CPUS|NODES|AllocCPUS|NCPUS|ReqCPUS|ReqMem|ReqTRES)$/,
    cases: /^ct-nvae-signal-neutral\.sh$/,
    reason: "Spur lacks: --ntasks-per-gpu=1 with --gpus-per-node=4, -N 1 and -c 32 (more CPUs than a node has, accepted held): 22.05 records one task's CPUs (32), "
      + "Spur four tasks' (128); with -c 2 both record 4 tasks and 8 CPUs",
  },
  {
    field: /^job(#\d+)?\.HetJobIdSet$/,
    when: (d) => {
      const range = (t: string) => /^(\d+)-(\d+)$/.exec(t)?.slice(1).map(Number);
      const [a, b] = [range(d.slurm), range(d.spur)];
      return a !== undefined && b !== undefined && a[1]! - a[0]! === b[1]! - b[0]!;
    },
    reason: "job ids: a het job's id set names raw ids (the leader's and its components'), which the masks leave; both sides are the same consecutive range from the leader",
  },
  {
    field: /^(exit|stderr)$/,
    cases: /^scancel -s USR1 \$J$/,
    when: (d) => d.field === "exit" ? d.slurm === "137" || d.slurm === "124" : /killed after/.test(d.slurm),
    reason: "22.05's scancel --signal on a pending job does not return (the runner kills it after 30 s); Spur answers at once with exit 0",
  },
  {
    field: /^stdout$/,
    cases: /^(sinfo -h -o %D,%T|scontrol -a show -o nodes|sinfo -a -h --Format='Nodes: ,GresUsed:')$/,
    reason: "node states and loads of the shared oracle (other helpers' jobs hold nodes; Spur's cluster is idle): @racy in commands.txt",
  },
  {
    field: /^stdout$/,
    cases: /^sshare -n -P -o account,fairshare$/,
    reason: "fair-share factors follow the shared oracle's usage by other helpers' jobs: @racy in commands.txt",
  },
];

export function knownReal(caseKey: string, d: FieldDiff): KnownReal | undefined {
  return KNOWN_REAL.find((k) => k.field.test(d.field) && (k.cases === undefined || k.cases.test(caseKey)) && (k.when === undefined || k.when(d)));
}
