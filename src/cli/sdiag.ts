/**
 * @module cli/sdiag
 * `sdiag`: the controller's scheduling statistics in Slurm's layout (global
 * job counters, main schedule cycle, backfill cycle). Values are this
 * controller process's, since it started or since the last `sdiag --reset`
 * (administrators only). Spur has no server/agent thread pools; those lines print 0. The RPC
 * tables count what this controller served, Spur's methods under Slurm's message names
 * (format/sdiag-rpc; -i/-t/-T sort them). With replicated
 * controllers a Raft section follows (format/sdiag-raft: each controller's role, term,
 * commit/applied index and lag; Slurm has no such section). Before it, a Spur section counts the
 * committed commands the controller skipped as not applicable (ApplyFailed: each one is a bug, logged
 * with its log index) and the scheduler decisions rejected as stale (normal under load).
 */
import { formatCtime } from "../compat/format-time.ts";
import { getoptLong, type OptionRow } from "../compat/format/getopt.ts";
import { SLURM_VERSION_LINE } from "../compat/format/openapi-json.ts";
import { formatRaftDiag } from "../compat/format/sdiag-raft.ts";
import { rpcSection, type RpcSort } from "../compat/format/sdiag-rpc.ts";
import type { DiagResponse, SchedCycleStats } from "../net/gen/spur/v1/controller_pb.ts";
import type { Plain } from "../lib/plain.ts";
import { type CliPort, type CliResult, RpcError } from "../net/ctl-port.ts";

const OPTIONS: readonly OptionRow[] = [
  { id: "all", short: "a", long: ["all"], arg: "none" },
  { id: "reset", short: "r", long: ["reset"], arg: "none" },
  { id: "version", short: "V", long: ["version"], arg: "none" },
  { id: "help", short: "h", long: ["help"], arg: "none" },
  { id: "usage", long: ["usage"], arg: "none" },
  { id: "json", long: ["json"], arg: "optional" },
  { id: "sort-by-id", short: "i", long: ["sort-by-id"], arg: "none" },
  { id: "sort-by-time", short: "t", long: ["sort-by-time"], arg: "none" },
  { id: "sort-by-time2", short: "T", long: ["sort-by-time2"], arg: "none" },
];

const USAGE = "Usage: sdiag [-M cluster] [-aritT]\n";

const CYCLE_ZERO: Plain<SchedCycleStats> = { cycles: 0, lastUs: 0, maxUs: 0, totalUs: 0, depthTotal: 0, lastDepth: 0, lastQueueLength: 0 };

const stamp = (t: number): string => `${formatCtime(t)} (${Math.floor(t)})`;

/** The report text for one DiagResponse (defaults filled), as sdiag prints it. */
export function diagText(d: Plain<DiagResponse>, sort: RpcSort = "count"): string {
  const main = { ...CYCLE_ZERO, ...(d.main ?? {}) };
  const bf = { ...CYCLE_ZERO, ...(d.backfill ?? {}) };
  const minutes = Math.max(1, (d.now - d.since) / 60);
  const mean = (total: number, n: number): number => (n > 0 ? Math.floor(total / n) : 0);
  const lines = [
    "*******************************************************",
    `sdiag output at ${stamp(d.now)}`,
    `Data since      ${stamp(d.since)}`,
    "*******************************************************",
    "Server thread count:  1",
    "Agent queue size:     0",
    "Agent count:          0",
    "Agent thread count:   0",
    "DBD Agent queue size: 0",
    "",
    `Jobs submitted: ${d.jobsSubmitted}`,
    `Jobs started:   ${d.jobsStarted}`,
    `Jobs completed: ${d.jobsCompleted}`,
    `Jobs canceled:  ${d.jobsCanceled}`,
    `Jobs failed:    ${d.jobsFailed}`,
    "",
    `Job states ts:  ${stamp(d.now)}`,
    `Jobs pending:   ${d.jobsPending}`,
    `Jobs running:   ${d.jobsRunning}`,
    "",
    "Main schedule statistics (microseconds):",
    `\tLast cycle:   ${Math.round(main.lastUs)}`,
    `\tMax cycle:    ${Math.round(main.maxUs)}`,
    `\tTotal cycles: ${main.cycles}`,
  ];
  if (main.cycles > 0) {
    lines.push(
      `\tMean cycle:   ${mean(main.totalUs, main.cycles)}`,
      `\tMean depth cycle:  ${mean(main.depthTotal, main.cycles)}`,
      `\tCycles per minute: ${Math.floor(main.cycles / minutes)}`,
    );
  }
  lines.push(`\tLast queue length: ${main.lastQueueLength}`, "");
  lines.push(
    "Backfilling stats",
    `\tTotal backfilled jobs (since last slurm start): ${d.backfilledTotal}`,
    `\tTotal backfilled jobs (since last stats cycle start): ${d.backfilledTotal}`,
    "\tTotal backfilled heterogeneous job components: 0",
    `\tTotal cycles: ${bf.cycles}`,
    `\tLast cycle when: ${stamp(d.bfLastWhen)}`,
    `\tLast cycle: ${Math.round(bf.lastUs)}`,
    `\tMax cycle:  ${Math.round(bf.maxUs)}`,
  );
  if (bf.cycles > 0) lines.push(`\tMean cycle: ${mean(bf.totalUs, bf.cycles)}`);
  lines.push(
    `\tLast depth cycle: ${bf.lastDepth}`,
    `\tLast depth cycle (try sched): ${d.bfLastDepthTrySched}`,
  );
  // the means only once a cycle ran (oracle 22.05: each right after its "last" line)
  if (bf.cycles > 0) lines.push(`\tDepth Mean: ${mean(bf.depthTotal, bf.cycles)}`, `\tDepth Mean (try depth): ${mean(d.bfDepthTrySchedTotal, bf.cycles)}`);
  lines.push(`\tLast queue length: ${bf.lastQueueLength}`);
  if (bf.cycles > 0) lines.push(`\tQueue length mean: ${mean(d.bfQueueLengthTotal, bf.cycles)}`);
  lines.push(`\tLast table size: ${d.bfLastTableSize}`);
  if (bf.cycles > 0) lines.push(`\tMean table size: ${mean(d.bfTableSizeTotal, bf.cycles)}`);
  lines.push("");
  lines.push(...rpcSection(d.rpcByMethod, d.rpcByUser, d.clockLatencyUs, sort));
  lines.push(
    "Controller state log (Spur)",
    `\tCommitted commands not applied (ApplyFailed): ${d.applyFailed}`,
    `\tStale scheduler decisions rejected: ${d.staleDecisions}`,
    "",
  );
  return `${lines.join("\n")}\n`;
}

const DIAG_DEFAULTS: Plain<DiagResponse> = {
  now: 0, since: 0, jobsSubmitted: 0, jobsStarted: 0, jobsCompleted: 0, jobsCanceled: 0, jobsFailed: 0,
  jobsPending: 0, jobsRunning: 0, main: undefined, backfill: undefined, backfilledTotal: 0, bfLastWhen: 0,
  bfLastDepthTrySched: 0, bfLastTableSize: 0, backfillEnabled: false, applyFailed: 0, staleDecisions: 0,
  bfDepthTrySchedTotal: 0, bfQueueLengthTotal: 0, bfTableSizeTotal: 0, rpcByMethod: [], rpcByUser: [], clockLatencyUs: 0,
};

export async function sdiagMain(argv: string[], port: CliPort): Promise<CliResult> {
  const parsed = getoptLong("sdiag", argv, OPTIONS);
  if (parsed.error !== undefined) return { stdout: "", stderr: `${parsed.error}\n${USAGE}`, exitCode: 1 };
  let reset = false;
  let sort: RpcSort = "count";
  for (const o of parsed.options) {
    if (o.id === "sort-by-id") sort = "id";
    if (o.id === "sort-by-time") sort = "time";
    if (o.id === "sort-by-time2") sort = "time2";
    if (o.id === "help" || o.id === "usage") return { stdout: USAGE, stderr: "", exitCode: 0 };
    if (o.id === "version") return { stdout: `${SLURM_VERSION_LINE}\n`, stderr: "", exitCode: 0 };
    if (o.id === "reset") reset = true;
    // --json[=data_parser]: the document GET /slurm/v0.0.45/diag serves (src/net/rest/cli-route)
    if (o.id === "json") return (await import("../net/rest/cli-route.ts")).jsonFlagAnswer("get_diag", {}, port, "sdiag", argv, o.value);
  }
  if (port.ctl.getDiag === undefined) return { stdout: "", stderr: "sdiag: error: controller does not support sdiag\n", exitCode: 1 };
  try {
    const d = { ...DIAG_DEFAULTS, ...(await port.ctl.getDiag({ reset })) };
    if (reset) return { stdout: "Reset scheduling statistics\n", stderr: "", exitCode: 0 };
    const raft = port.ctl.pingAll === undefined ? "" : formatRaftDiag(await port.ctl.pingAll());
    return { stdout: diagText(d, sort) + raft, stderr: "", exitCode: 0 };
  } catch (e) {
    if (e instanceof RpcError && e.code === "permission_denied") {
      return { stdout: "", stderr: "slurm_reset_statistics: Access/permission denied\n", exitCode: 1 };
    }
    const text = e instanceof RpcError && e.code === "unavailable" ? "Unable to contact slurm controller (connect failure)" : (e as Error).message;
    return { stdout: "", stderr: `slurm_get_statistics: ${text}\n`, exitCode: 1 };
  }
}
