/**
 * @module tests/conformance/known/extra
 * Known differences of the extra scenarios (see known-differences.ts). The
 * exact diffs of pinned entries are in pinned-diffs.json.
 */
import type { KnownEntry } from "./why.ts";
import { WHY } from "./why.ts";

export const EXTRA_KNOWN: KnownEntry[] = [
  { id: "x-opt-partition-gpu-typed-gres", differs: "%b gres/gpu:mi300x:1 (22.05 gres:gpu:mi300x:1)", why: WHY.gres26 },
  { id: "x-opt-gpus-per-node", differs: "%b gres/gpu:1 (22.05 gres:gpu:1)", why: WHY.gres26 },
  { id: "x-squeue-tres-gres", differs: "%b gres/gpu:3 (22.05 gres:gpu:3)", why: WHY.gres26 },
  { id: "x-env-srun-step-in-batch", differs: "SLURM_DISTRIBUTION=cyclic missing", why: "22.05 vs 26.x table: SLURM_DISTRIBUTION is set only with -m in 26.x" },
  { id: "x-env-srun-step-multinode", differs: "two tasks: SLURM_DISTRIBUTION=cyclic missing", why: "22.05 vs 26.x table: SLURM_DISTRIBUTION only with -m" },
  { id: "x-env-salloc", differs: "no SLURM_CONF (22.05 sets it for salloc's command), extra SLURM_MEM_PER_CPU", why: "22.05 vs 26.x table: SLURM_CONF is listed for batch and steps only, SLURM_MEM_PER_CPU for batch and salloc (job name 'interactive' and ClusterName now agree). Not pinned: the oracle sometimes adds `salloc: Job allocation N has been revoked.`", pinned: false },
  { id: "x-nodelist-busy-node", differs: "the pending job's reason right after submission: Resources in Spur; the oracle shows None or Resources", why: "Not pinned, and may come out identical: the job waits for the busy -w node in both; Spur names the reason in the scheduling pass that follows the submission, 22.05 shows None until its next pass, so which reason squeue sees 2 s later depends on the oracle's pass timing (identical in CI on 2026-12-03)", pinned: false, flaky: true, issue: 5 },
  { id: "x-outname-name-user-node", differs: "%N is the node name n1; the oracle gives the host name vm", why: "22.05 vs 26.x table: %N is the NodeName in the table; the oracle's multiple-slurmd 22.05 expands the host name" },
  { id: "x-outname-array-b-padded-a", differs: "%b (index modulo 10) expanded; 22.05 keeps it literal", why: "22.05 vs 26.x table: %b is newer than 22.05" },
  { id: "x-timeout-sacct", differs: "the TIMEOUT job's .batch step: CANCELLED 0:15 in Spur; the oracle records CANCELLED 0:15 or FAILED 15:0", why: "Not pinned, and may come out identical: the oracle records the timed-out job's .batch step as CANCELLED 0:15 or FAILED 15:0 from run to run (as in 109)", pinned: false, flaky: true, issue: 3 },
  { id: "x-sacct-array-throttled", differs: "the throttled array's pending remainder and running task", why: "Not pinned: the oracle's slurmdbd shows _[1-4%1] (not yet split) or _[2-4%1] plus _1 from run to run; Spur always the latter", flaky: true, pinned: false, issue: 3 },
  { id: "x-err-squeue-bad-state", differs: "valid-state list", why: WHY.states26 },
  { id: "x-err-sinfo-bad-state", differs: "valid-state list", why: WHY.states26 },
  { id: "x-err-scontrol-update-partition-bad-state", differs: "the aborted update's last line: slurm_update error: No error in Spur; the oracle prints the errno text left over (No error or Resource temporarily unavailable)", why: "Not pinned, and may come out identical: 22.05's scontrol ends an aborted update with slurm_perror, so the text is whatever errno an earlier library call left behind (\"No error\" when probed on 2026-12-04 morning, \"Resource temporarily unavailable\" in a run that afternoon); Spur prints \"No error\"", pinned: false, flaky: true, issue: 21 },
  { id: "x-err-scontrol-update-partition-unknown-key", differs: "the aborted update's last line: slurm_update error: No error in Spur; the oracle prints the errno text left over (No error or Resource temporarily unavailable)", why: "Not pinned, and may come out identical: 22.05's scontrol ends an aborted update with slurm_perror, so the text is whatever errno an earlier library call left behind (\"No error\" when probed on 2026-12-04 morning, \"Resource temporarily unavailable\" in a run that afternoon); Spur prints \"No error\"", pinned: false, flaky: true, issue: 21 },
  { id: "x-dep-aftercorr", differs: "the pending job's reason: Dependency (the oracle: None or Dependency)", why: "Not pinned, and may come out identical: the oracle's reason for a job waiting on aftercorr flaps between None and Dependency from run to run", pinned: false, flaky: true, issue: 3 },
];
