/**
 * @module compat/options/messages
 * How sbatch/srun/salloc print failures and warnings: getopt errors verbatim (they carry
 * "<cmd>: " and the Try line), other errors one "<cmd>: error: " line per message line,
 * controller rejections with Slurm's "Batch job submission failed: " (sbatch) or
 * "Unable to allocate resources: " (srun) or "Job submit/allocate failed: " (salloc) in front of the reason.
 */
import type { SpurError } from "../../lib/result.ts";
import { isBareTimeError } from "../parse-time.ts";
import { USAGE_ERROR } from "./parse-args.ts";
import { INVALID_NODE_NAME, INVALID_TRES, NODE_COUNT_INVALID } from "./spec-syntax.ts";
import type { Command } from "./table.ts";

/** Code of errors Slurm reports with "<cmd>: fatal: " (srun without a command). */
export const FATAL = "Fatal";

/** Code of errors Slurm reports as error lines and then one "<cmd>: fatal: " line, the message's last (srun --cpu-bind=bogus). */
export const ERROR_THEN_FATAL = "ErrorThenFatal";

/** -p "": refused as the controller refuses a partition it does not know, naming it "(null)" (oracle). */
export const EMPTY_PARTITION = "EmptyPartition";

/**
 * Local checks whose failure Slurm reports as a controller rejection (goldens 084, 099): the
 * message's last line is the reason, lines before it the controller's messages to the user.
 */
const REJECTION_CODES = new Set(["InvalidArray", "DependencyProblem", "NotSupported", NODE_COUNT_INVALID, INVALID_NODE_NAME, EMPTY_PARTITION, INVALID_TRES]);

/** Whether a local check stands for the controller's rejection: Slurm reports it only after every check of its client passed. */
export const isControllerRejection = (e: SpurError): boolean => REJECTION_CODES.has(e.code);

/** Code of such a rejection under --test-only: Slurm's will-run answer, "allocation failure: <reason>". */
export const TEST_ONLY_REJECTION = "TestOnlyRejection";

/** A local check's failure as --test-only reports it (oracle: `--test-only --dependency=afterok:abc`, differential seed 142). */
export const asTestOnly = (e: SpurError): SpurError => (REJECTION_CODES.has(e.code) ? { ...e, code: TEST_ONLY_REJECTION } : e);

/** Reasons Slurm prints without the rejection prefix (golden 088). */
const BARE_REASONS = new Set(["Invalid generic resource (gres) specification"]);

/** What each command puts before the controller's reason (oracle 22.05: salloc -w nosuch). */
export const rejectionPrefix = (cmd: Command): string =>
  cmd === "sbatch" ? "Batch job submission failed: " : cmd === "salloc" ? "Job submit/allocate failed: " : "Unable to allocate resources: ";

const errorLines = (cmd: Command, lines: readonly string[]): string =>
  lines.map((l) => (isBareTimeError(l) ? `${l}\n` : `${cmd}: error: ${l}\n`)).join("");

/** stderr text for a failed Result. */
export function errorText(cmd: Command, e: SpurError): string {
  if (e.code === USAGE_ERROR) return `${e.message}\n`;
  const lines = e.message.split("\n");
  const reason = lines.pop() ?? "";
  if (e.code === TEST_ONLY_REJECTION) return `${errorLines(cmd, lines)}allocation failure: ${reason}\n`;
  if (REJECTION_CODES.has(e.code)) return errorLines(cmd, [...lines, `${rejectionPrefix(cmd)}${reason}`]);
  if (e.code === FATAL) return e.message.split("\n").map((l) => `${cmd}: fatal: ${l}\n`).join("");
  if (e.code === ERROR_THEN_FATAL) return `${errorLines(cmd, lines)}${cmd}: fatal: ${reason}\n`;
  return errorLines(cmd, e.message.split("\n"));
}

/** Spur's own notes print as "<cmd>: warning: ..."; Slurm's own warnings keep their "Warning: " (e.g. the node count lowered to -n). */
export const warningText = (cmd: Command, warnings: readonly string[]): string =>
  warnings.map((w) => (/^(Warning|error): /.test(w) ? `${cmd}: ${w}\n` : `${cmd}: warning: ${w}\n`)).join("");

/**
 * stderr text for a controller rejection. The RpcError message is the reason; lines before
 * the last one are the controller's messages to the user (printed first, as Slurm prints
 * job_submit_user_msg), e.g. "Memory specification can not be satisfied\nRequested node
 * configuration is not available" (golden 095). For an invalid partition without such a
 * line, Slurm's "invalid partition specified: <name>" is supplied here (golden 086).
 */
export function rejectionText(cmd: Command, message: string, partition: string): string {
  const lines = message.split("\n").filter((l) => l !== "");
  const reason = lines.pop() ?? "";
  if (lines.length === 0 && reason === "Invalid partition name specified" && partition !== "") {
    lines.push(`invalid partition specified: ${partition}`);
  }
  const prefix = rejectionPrefix(cmd);
  const last = BARE_REASONS.has(reason) || reason.startsWith(prefix) ? reason : `${prefix}${reason}`;
  return errorLines(cmd, [...lines, last]);
}

/** Lines the node-configuration test adds before its reason; `--test-only` does not print them (oracle). */
const NODE_TEST_DETAILS = new Set(["CPU count per node can not be satisfied", "Memory specification can not be satisfied",
  // oracle: `--test-only --tmp=100` (differential seed 145)
  "Temporary disk specification can not be satisfied",
  // oracle: `--test-only --sockets-per-node=4` (differential seed 38)
  "Socket, core and/or thread specification can not be satisfied"]);

/**
 * stderr text for a refused `--test-only` (Slurm 22.05, live oracle): the user messages as
 * "<cmd>: error: " lines, then "allocation failure: <reason>" without the command's name,
 * e.g. `sbatch --test-only -c 96` → "allocation failure: Requested node configuration is not available".
 */
export function testOnlyFailureText(cmd: Command, message: string, partition: string): string {
  const lines = message.split("\n").filter((l) => l !== "" && !NODE_TEST_DETAILS.has(l));
  const reason = lines.pop() ?? "";
  if (lines.length === 0 && reason === "Invalid partition name specified" && partition !== "") {
    lines.push(`invalid partition specified: ${partition}`);
  }
  return `${errorLines(cmd, lines)}allocation failure: ${reason}\n`;
}
