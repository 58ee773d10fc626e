/**
 * @module sched/model/request-echo
 * Parts of a job's request that the job record only echoes for display (scontrol show job):
 * the mail it asked for (MailUser= defaults to the submitter once a type is set),
 * --kill-on-invalid-dep=yes, --gres-flags, --container (as given, empty too),
 * --ntasks-per-socket, --cpus-per-gpu and --mem-per-gpu (CpusPerTres=/MemPerTres=gres:gpu:N) and --time-min (TimeMin=),
 * --spread-job, --cpu-freq, --gpu-freq (TresFreq=) and --network.
 * Found by the differential tester against Slurm 22.05 (seeds 57, 149, 237, 250, 253).
 */
import { mailTypeText } from "../../compat/mail-type.ts";
import { shownGivenEmpty } from "../../compat/given-empty.ts";
import type { JobInfoState, JobSpecState } from "./state-types.ts";

type Echo = Pick<JobInfoState, "mailType" | "mailUser" | "killOnInvalidDep" | "gresFlags" | "container" | "ntasksPerSocket" | "ntasksPerCore" | "ntasksPerTres" | "memPerTres" | "timeMinMin" | "cpusPerTres" | "spreadJob" | "cpuFreq" | "tresFreq" | "network" | "delayBootSec" | "givenEmpty">;

export function requestEcho(spec: JobSpecState, user: string): Echo {
  const out: Echo = {};
  const mail = mailTypeText(spec.mailType);
  if (mail !== "") Object.assign(out, { mailType: mail, mailUser: spec.mailUser || user });
  if (spec.killOnInvalidDep) out.killOnInvalidDep = true;
  else if (spec.noKillOnInvalidDep === true) out.killOnInvalidDep = false;
  if (spec.gresFlags) out.gresFlags = spec.gresFlags;
  if (spec.container !== undefined) out.container = spec.container;
  if ((spec.ntasksPerSocket ?? 0) > 0) out.ntasksPerSocket = spec.ntasksPerSocket;
  if ((spec.ntasksPerCore ?? 0) > 0) out.ntasksPerCore = spec.ntasksPerCore;
  if (spec.ntasksPerGpu > 0) out.ntasksPerTres = spec.ntasksPerGpu;
  if (spec.cpusPerGpu > 0) out.cpusPerTres = `gres:gpu:${spec.cpusPerGpu}`;
  if (spec.memPerGpuMib !== undefined) out.memPerTres = `gres:gpu:${spec.memPerGpuMib}`;
  // --spread-job, --cpu-freq, --gpu-freq, --network: shown by scontrol (oracle 22.05)
  if (spec.spreadJob === true) out.spreadJob = true;
  if (spec.cpuFreq) out.cpuFreq = spec.cpuFreq;
  if (spec.tresFreq) out.tresFreq = spec.tresFreq;
  if (spec.network !== undefined) out.network = spec.network; // "--network=" shows Network= (oracle)
  if ((spec.delayBootSec ?? 0) > 0) out.delayBootSec = spec.delayBootSec;
  // --constraint=, --comment=, ... given empty show empty, not (null) (compat/given-empty.ts)
  const shown = shownGivenEmpty(spec.givenEmpty);
  if (shown !== undefined) out.givenEmpty = shown;
  // oracle: --time-min=5 is TimeMin=00:05:00; --deadline without -t is TimeMin=00:01:00
  if (spec.timeMinMin !== undefined) out.timeMinMin = spec.timeMinMin;
  else if (spec.deadline > 0 && spec.timeLimitMin === undefined) out.timeMinMin = 1;
  return out;
}
