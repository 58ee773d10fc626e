/**
 * @module cli/strigger
 * `strigger --set | --get | --clear`: event triggers kept by the controller (sched/model/
 * triggers.ts). --get prints Slurm's table (TRIG_ID RES_TYPE RES_ID TYPE OFFSET USER FLAGS
 * PROGRAM, printf widths, a header only above the first row) after filtering as strigger
 * does, on the client; --set/--clear print nothing on success and `slurm_set_trigger: ...`
 * / `slurm_clear_trigger: ...` on a refusal; -Q silences a failed clear. Checked against
 * the 22.05 oracle.
 */
import { RpcError, type CliPort, type CliResult } from "../net/ctl-port.ts";
import { checkStrigger, parseStrigger, setRequestOf, type FileKind, type StriggerParams } from "./strigger-args.ts";
import { SLURM_VERSION_LINE } from "../compat/slurm-release.ts";
import type { Plain } from "../lib/plain.ts";
import type { TriggerInfo } from "../net/gen/spur/v1/controller_pb.ts";

/** What strigger needs beyond the CliPort: the kind of file --program names, and a user's uid. */
export interface StriggerHost {
  fileKind(path: string): FileKind;
  /** uid of a user name or numeric id; undefined when unknown. */
  uidOf(user: string): number | undefined;
}

export type TriggerRow = Plain<TriggerInfo>;

const HEADER = "TRIG_ID RES_TYPE   RES_ID TYPE                                OFFSET USER     FLAGS PROGRAM\n";

/** One trigger's TYPE column: its type, or "unknown" for a trigger set with several events (as Slurm). */
export const typeText = (t: TriggerRow): string => (t.types.length === 1 ? (t.types[0] as string) : "unknown");

/**
 * One --get row: printf "%7u %-9s%8s %-35s %6d %-8s %-5s %s" (the oracle's "slurmctld       *" shows
 * RES_TYPE and RES_ID with no space of their own between them); wider values push the rest right.
 */
export function formatTriggerRow(t: TriggerRow): string {
  return [
    String(t.triggerId).padStart(7), t.resType.padEnd(9) + t.resId.padStart(8), typeText(t).padEnd(35), String(t.offset).padStart(6),
    t.user.padEnd(8), (t.perm ? "PERM" : "").padEnd(5), t.program,
  ].join(" ") + "\n";
}

const NODE_TYPE_FILTERS = ["down", "up", "drained", "fail", "idle"] as const;

/** strigger's --get filters: each given option narrows the list; --reconfig, --offset and the daemon events do not. */
export function triggerMatches(t: TriggerRow, p: StriggerParams, uid: number | undefined): boolean {
  if (p.triggerId !== undefined && p.triggerId !== 0 && t.triggerId !== p.triggerId) return false;
  if (p.jobId !== undefined && !(t.resType === "job" && t.resId === String(p.jobId))) return false;
  if (p.node !== undefined && t.resType !== "node") return false;
  if (uid !== undefined && t.uid !== uid) return false;
  for (const ty of ["fini", "time"] as const) if (p.types.includes(ty) && !(t.resType === "job" && typeText(t) === ty)) return false;
  for (const ty of NODE_TYPE_FILTERS) if (p.types.includes(ty) && !(t.resType === "node" && typeText(t) === ty)) return false;
  return true;
}

export function formatTriggers(rows: readonly TriggerRow[], p: StriggerParams, uid: number | undefined): string {
  const chosen = rows.filter((t) => triggerMatches(t, p, uid));
  if (chosen.length === 0) return "";
  return (p.noHeader ? "" : HEADER) + chosen.map(formatTriggerRow).join("");
}

const USAGE = "Usage: strigger [--set | --get | --clear | --version] [-aAbBcCdDefFgGhHiIjnNopQrtuv]\n";

const HELP = `Usage: strigger [--set | --get | --clear] [OPTIONS]
      --set           add a trigger
      --get           list triggers
      --clear         remove triggers (select them with --id, --jobid or --user)

      --burst_buffer  event: a burst buffer error
      --front_end     the node events concern front end nodes
  -a, --primary_slurmctld_failure            event: the primary controller failed
  -A, --primary_slurmctld_resumed_operation  event: the primary controller works again
  -b, --primary_slurmctld_resumed_control    event: the primary controller took control back
  -B, --backup_slurmctld_failure             event: a backup controller failed
  -c, --backup_slurmctld_resumed_operation   event: a backup controller works again
  -C, --backup_slurmctld_assumed_control     event: a backup controller took control
  -d, --down          event: a node went DOWN
  -D, --drained       event: a node is DRAINED
  -e, --primary_slurmctld_acct_buffer_full   event: the accounting buffer is full
  -F, --fail          event: a node is set to FAIL
  -f, --fini          event: the job ended
      --flags=perm    keep the trigger after it fired
  -g, --primary_slurmdbd_failure             event: slurmdbd failed
  -G, --primary_slurmdbd_resumed_operation   event: slurmdbd works again
  -h, --primary_database_failure             event: the database failed
  -H, --primary_database_resumed_operation   event: the database works again
  -i, --id=#          trigger id
  -I, --idle          event: a node stayed IDLE for --offset seconds
  -j, --jobid=#       the job the trigger is about
  -M, --cluster=name  cluster to talk to
  -n, --node[=host]   the nodes the trigger is about (all when no list is given)
  -N, --noheader      no header line
  -o, --offset=#      seconds after the event (negative: before a job's time limit)
  -p, --program=path  absolute path of the program to run, with its arguments
  -Q, --quiet         do not report a failed --clear
  -r, --reconfig      event: the configuration changed
  -t, --time          event: the job reached its time limit
  -u, --up            event: a node came back from DOWN
      --user          user (name or id) whose triggers to list or clear
  -v, --verbose       more messages
  -V, --version       print the version

Help options:
  --help              this text
  --usage             a one-line summary
`;

const rpcMessage = (e: unknown): string => (e instanceof RpcError || e instanceof Error ? e.message : String(e));

/** Run strigger with `argv` (without the program name). */
export async function striggerMain(argv: string[], port: CliPort, host: StriggerHost): Promise<CliResult> {
  const parsed = parseStrigger(argv, (u) => host.uidOf(u) !== undefined);
  if ("error" in parsed) return { stdout: "", stderr: parsed.error, exitCode: 1 };
  const p = parsed.params;
  if (p.help === "version") return { stdout: `${SLURM_VERSION_LINE}\n`, stderr: "", exitCode: 0 };
  if (p.help !== undefined) return { stdout: p.help === "help" ? HELP : USAGE, stderr: "", exitCode: 0 };
  const refused = checkStrigger(p, host.fileKind);
  if (refused !== undefined) return { stdout: "", stderr: refused, exitCode: 1 };
  const uid = p.user === undefined ? undefined : host.uidOf(p.user);
  const mode = p.modes[0];
  try {
    if (mode === "get") {
      const list = await need(port.ctl.listTriggers)({});
      return { stdout: formatTriggers(list.triggers, p, uid), stderr: "", exitCode: 0 };
    }
    if (mode === "set") {
      const where = setRequestOf(p);
      await need(port.ctl.setTrigger)({ ...where, types: p.types, offset: p.offset, perm: p.perm, program: p.program ?? "" });
      return { stdout: "", stderr: "", exitCode: 0 };
    }
    await need(port.ctl.clearTrigger)({ triggerId: p.triggerId ?? 0, jobId: p.jobId ?? 0, ...(uid === undefined ? {} : { uid }) });
    return { stdout: "", stderr: "", exitCode: 0 };
  } catch (e) {
    if (mode === "clear" && p.quiet) return { stdout: "", stderr: "", exitCode: 0 };
    const call = mode === "get" ? "slurm_get_triggers" : mode === "set" ? "slurm_set_trigger" : "slurm_clear_trigger";
    return { stdout: "", stderr: `${call}: ${rpcMessage(e)}\n`, exitCode: 1 };
  }
}

function need<T>(fn: T | undefined): T {
  if (fn === undefined) throw new RpcError("unimplemented", "Requested operation is presently disabled");
  return fn;
}
