/**
 * @module cli/scontrol-write
 * `scontrol write batch_script JOBID [FILE|-]`: a batch job's script as it was submitted,
 * written to FILE (default slurm-JOBID.sh in the working directory) or to stdout with `-`.
 * As 22.05 behaves (oracle): the job id is read as a leading number (`12_3`, `12.batch` are
 * job 12); a job that cannot be read, a refusal or an unwritable file is reported on stderr
 * and still exits 0; only the command's own words (too few, too many, an unknown sub-command)
 * exit 1. `write config` (slurm.conf as running) is not served by Spur and says so.
 */
import { RpcError, type CliPort } from "../net/ctl-port.ts";
import { keywordMatch } from "../compat/format/scontrol-update.ts";
import { outcome, type Outcome } from "./scontrol-jobs.ts";

/** The number at the head of `word` (C's atoi: none, or a sign, reads as 0). */
function leadingJobId(word: string): number {
  const m = /^\s*(\d+)/.exec(word);
  return m === undefined || m === null ? 0 : Number(m[1]);
}

export async function writeCommand(port: CliPort, words: readonly string[]): Promise<Outcome> {
  const keyword = words[0] ?? "write";
  if (words.length < 2) return outcome("", `too few arguments for keyword:${keyword}\n`, true);
  if (words.length > 4) return outcome("", `too many arguments for keyword:${keyword}\n`, true);
  const what = words[1] ?? "";
  if (keywordMatch(what, "config", 6)) return outcome("", "scontrol: error: write config is not supported by Spur (spur.conf is the configuration)\n", true);
  if (!keywordMatch(what, "batch_script", 5)) return outcome("", `invalid write argument:${what}\n`, true);
  if (words[2] === undefined) return outcome();
  const jobId = leadingJobId(words[2]);
  const script = await scriptOf(port, jobId);
  if ("failed" in script) return outcome("", `job script retrieval failed: ${script.failed}\n`);
  const target = words[3] ?? `slurm-${jobId}.sh`;
  if (target === "-") return outcome(script.text);
  if (port.writeFile === undefined) return outcome("", `failed to open file \`${target}\`: Operation not supported\n`);
  const error = await port.writeFile(target, script.text);
  if (error !== undefined) return outcome("", `failed to open file \`${target}\`: ${error}\n`);
  return outcome(`batch script for job ${jobId} written to ${target}\n`);
}

async function scriptOf(port: CliPort, jobId: number): Promise<{ text: string } | { failed: string }> {
  if (jobId <= 0) return { failed: "Invalid job id specified" };
  if (port.ctl.getJobScript === undefined) return { failed: "Requested operation is presently disabled" };
  try {
    return { text: (await port.ctl.getJobScript({ jobId })).script };
  } catch (e) {
    if (!(e instanceof RpcError)) throw e;
    return { failed: e.message };
  }
}
