/**
 * @module tests/conformance/known/golden
 * Known differences of the golden (re-run live) scenarios (see known-differences.ts). The
 * exact diffs of pinned entries are in pinned-diffs.json.
 */
import type { KnownEntry } from "./why.ts";
import { WHY } from "./why.ts";

export const GOLDEN_KNOWN: KnownEntry[] = [
  { id: "022-scontrol-show-config", differs: "same keys in the same order; values differ where Spur differs (AuthType auth/loopback vs auth/munge, plugins Spur has none of, paths, SLURM_VERSION 26.05.0)", why: "Spur shows what it does under each of Slurm's keys (src/ctld/config-view.ts, config-keys.ts): its own plugins and paths, Slurm's defaults where it behaves so; SLURM_VERSION is the Slurm release Spur follows (26.x tables). auth/loopback instead of MUNGE is by design (README). Not pinned: the oracle's NEXT_JOB_ID and other counters move", pinned: false, issue: 8 },
  { id: "053-squeue-busy-o-many", differs: "%b gres/gpu:2 (22.05 gres:gpu:2)", why: WHY.gres26 },
  { id: "054-squeue-busy-O-format", differs: "TRES_PER_NODE gres/gpu:2 (22.05 gres:gpu:2)", why: WHY.gres26 },
  { id: "012-sinfo-json", differs: "keys and types of sinfo --json: Spur prints data_parser v0.0.45's openapi_sinfo_resp (22.05: v0.0.38's node list)", why: "22.05 vs 26.x table: a bare --json prints the current data_parser shape (rest-api.md); `sinfo --json=v0.0.38` prints 22.05's text (unit test sinfo-golden, golden 012 byte for byte). Not pinned: the oracle's node values (load, memory) vary", pinned: false, issue: 21 },
  { id: "014-squeue-json-empty", differs: "keys and types of squeue --json: Spur prints data_parser v0.0.45 (22.05: v0.0.38)", why: "22.05 vs 26.x table: a bare --json prints the current data_parser shape (rest-api.md); `squeue --json=v0.0.38` prints 22.05's text (unit test squeue-json, golden 014 byte for byte)", pinned: false, issue: 21 },
  { id: "115-sacct-json-j", differs: "keys and types of sacct --json: Spur prints data_parser v0.0.45 (22.05: dbv0.0.38)", why: "22.05 vs 26.x table: a bare --json prints the current data_parser shape (rest-api.md); `sacct --json=v0.0.38` prints 22.05's text (unit test sacct, golden 115 byte for byte)", pinned: false, issue: 21 },
  { id: "055-squeue-busy-json", differs: "keys and types of squeue --json differ (Spur's JSON follows a newer data_parser shape)", why: "22.05 vs 26.x table: Spur answers in a later OpenAPI shape than 22.05's v0.0.38 (see rest-api.md). Not pinned: the oracle's --json lists finished jobs of the last MinJobAge too, so its types vary with history", pinned: false },
  { id: "059-scontrol-show-job-array-task", differs: "AccrueTime of the running array task: Unknown in Spur, a time on the oracle in some runs", why: [WHY.accrue, "Not pinned: the oracle shows an AccrueTime for array tasks in some runs and Unknown in others"].join(" "), pinned: false, flaky: true },
  { id: "062-scontrol-show-job-array-all", differs: "AccrueTime of each running array task: Unknown in Spur, a time on the oracle in some runs", why: [WHY.accrue, "Not pinned: the oracle shows an AccrueTime for array tasks in some runs and Unknown in others"].join(" "), pinned: false, flaky: true },
  { id: "077-squeue-after-scancel", differs: "the pending 'dep' job is listed in another place among the jobs left after the cancellations", why: "Not pinned: the oracle shows a completing (CG) task or not, and the held job's reason as Priority or None, from run to run, which moves the lines around", pinned: false, issue: 5 },
  { id: "031-srun-too-many-nodes-waits", differs: "after the revoke line, the oracle prints `srun: Force Terminated JobId=N` in some runs only (Spur always)", why: "Not pinned, and may come out identical: killed by timeout(1) while its job pends, 22.05's srun prints the Force Terminated line or not from run to run (the golden file has it)", pinned: false, flaky: true, issue: 3 },
  { id: "092-squeue-partitionconfig", differs: "the -N5 job's reason: PartitionConfig in Spur; the oracle shows PartitionConfig (as in the golden file) or PartitionNodeLimit", why: "Not pinned, and may come out identical: 22.05 sets PartitionConfig at submission and PartitionNodeLimit when a later scheduling pass looks at the job again, so which one squeue sees depends on the pass timing (seen on 2026-12-04)", pinned: false, flaky: true, issue: 3 },
  { id: "110-sacct-j-held-cancelled", differs: "the never-started held job's name: the oracle's slurmdbd shows \"allocation\" in some runs (as in the golden file) and heldcancel in others", why: "Not pinned, and may come out identical: the oracle's slurmdbd names this never-started job \"allocation\" in some runs and heldcancel in others", pinned: false, flaky: true, issue: 3 },
  { id: "083-sbatch-dependency-unknown-job", differs: "Spur rejects afterok:<unknown id> (`Job dependency problem`, exit 1); 22.05 accepts it", why: "22.05 vs 26.x table: 'at submit time, a job id that is not found is rejected' (dependency-and-array.md); 22.05 accepted it and ran the job" },
  { id: "102-sacct-default", differs: "see why", why: WHY.sacctListing, pinned: false },
  { id: "103-sacct-parsable2-format", differs: "see why", why: WHY.sacctListing, pinned: false },
  { id: "104-sacct-X", differs: "see why", why: WHY.sacctListing, pinned: false },
  { id: "112-sacct-brief", differs: "see why", why: WHY.sacctListing, pinned: false },
  { id: "113-sacct-n-X-P", differs: "see why", why: WHY.sacctListing, pinned: false },
  { id: "109-sacct-j-cancelled-long", differs: "the cancelled job's .batch step: CANCELLED 0:15 in Spur; the oracle records CANCELLED 0:15 or FAILED 15:0", why: "Not pinned, and may come out identical: the oracle records the cancelled .batch step as CANCELLED 0:15 or FAILED 15:0 from run to run", pinned: false, flaky: true, issue: 3 },
  { id: "116-sacct-helpformat", differs: "the field list is 26.x's", why: "22.05 vs 26.x table: Spur lists sacct-fields.tsv (26.x), which adds fields such as Exclusive, Extra, FailedNode, Licenses, SLUID" },
  { id: "119-output-files", differs: "one output file fewer in Spur: that of the afterok:<unknown id> job (083), which 22.05 runs and Spur refuses", why: "22.05 vs 26.x table: 'at submit time, a job id that is not found is rejected' (dependency-and-array.md), so Spur's 083 job never runs and writes no slurm-N.out" },
];
