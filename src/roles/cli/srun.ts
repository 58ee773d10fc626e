/**
 * @module roles/cli/srun
 * srun: inside an allocation (SLURM_JOB_ID or --jobid) it runs a step of that
 * job; outside one it first gets its own allocation (and releases it when the
 * step ends). Ctrl-C cancels the step, as with Slurm's srun.
 */
import { hostname } from "node:os";
import { basename } from "node:path";
import { containerEnvOf } from "../../compat/container-request.ts";
import { parseSrunArgs } from "../../compat/options/interactive-args.ts";
import { errorText, rejectionText, warningText } from "../../compat/options/messages.ts";
import { RpcError } from "../../cli/io.ts";
import { lookupUid } from "../../net/users.ts";
import { clusterNameOf, confPath } from "../conf-file.ts";
import { call } from "./port.ts";
import { allocate, cancelAllocation, ctlUrl, release } from "./allocation.ts";
import { runStep } from "./step-launch.ts";

export async function main(argv: string[]): Promise<number> {
  const parsed = parseSrunArgs(argv, process.env, { invoker: { cwd: process.cwd(), hostname: hostname(), umask: process.umask() }, now: Date.now() / 1000 });
  if (!parsed.ok) {
    process.stderr.write(errorText("srun", parsed.error));
    return parsed.error.exitCode ?? 1;
  }
  const r = parsed.value;
  if (r.kind === "exit") {
    (await import("../closed-pipe.ts")).endQuietlyOnClosedPipe(); // `srun --help | head`
    process.stdout.write(r.stdout);
    return r.exitCode;
  }
  if (r.warnings.length > 0) process.stderr.write(warningText("srun", r.warnings));
  if (r.settings.verbose > 0) {
    const { definedOptionsDump } = await import("../../compat/options/srun-verbose.ts");
    process.stderr.write(definedOptionsDump(argv.slice(0, argv.length - r.command.length), process.env));
  }
  const uid = process.getuid?.() ?? 0;
  const user = lookupUid(uid);
  const url = ctlUrl();
  let jobId = r.settings.jobId ?? 0;
  const own = jobId === 0;
  const abort = new AbortController();
  let baseEnv: Record<string, string> = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  if (r.settings.cpuBind !== undefined) baseEnv.SLURM_CPU_BIND = r.settings.cpuBind; // spurd binds the tasks from it
  // --container-image and friends reach spurd in the tasks' environment (as Slurm forwards SPANK options)
  baseEnv = { ...baseEnv, ...containerEnvOf(r.spec.env) };
  try {
    if (own) {
      const job = await allocate("srun", r.spec, r.settings.quiet, r.settings.immediateSec);
      jobId = job.jobId;
      baseEnv = { ...baseEnv, SLURM_JOB_ID: String(jobId) };
    }
    let interrupted = 0;
    process.on("SIGINT", () => {
      interrupted += 1;
      process.stderr.write(`srun: interrupt (one more within 1 sec to abort)\n`);
      if (interrupted >= 1) {
        process.stderr.write(`srun: Job step aborted\n`);
        abort.abort();
      }
    });
    // a step inside an existing allocation is named after its command unless -J says otherwise
    // (SLURM_JOB_NAME, which srun reads as input, names allocations only): x-squeue-steps
    const options = argv.slice(0, argv.length - r.command.length);
    const named = options.some((a) => a === "-J" || (a.startsWith("-J") && !a.startsWith("--")) || a.startsWith("--job-name"));
    const stepSpec = own || named ? r.spec : { ...r.spec, name: basename(r.command[0] ?? "") || r.spec.name };
    const result = await runStep(
      {
        jobId, spec: stepSpec, command: r.command, label: r.settings.label, baseEnv, confPath: confPath(),
        clusterName: clusterNameOf(confPath()), umask: process.umask(),
        uid, gid: process.getgid?.() ?? user.gid, user: user.name, cwd: process.cwd(),
        exact: r.settings.exact || r.spec.cpusPerGpu > 0, host: hostname(), verbose: r.settings.verbose,
      },
      { stepCreate: (req) => call(url, "StepCreate", req), stepComplete: (req) => call(url, "StepComplete", req) },
      abort.signal,
    );
    if (own) await release(jobId, result.exitCode, result.exitSignal);
    if (result.exitSignal !== 0) return 128 + result.exitSignal;
    return result.exitCode;
  } catch (error) {
    if (own && jobId !== 0) await cancelAllocation(jobId);
    if (error instanceof RpcError) {
      const text = own && jobId === 0 ? rejectionText("srun", error.message, r.spec.partition) : `srun: error: ${error.message}\n`;
      process.stderr.write(text);
      return 1;
    }
    process.stderr.write(`srun: error: ${(error as Error).message}\n`);
    return 1;
  }
}
