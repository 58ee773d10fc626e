/**
 * @module roles/cli/salloc
 * salloc: get an allocation, run the given command (default: the user's shell)
 * with the job's SLURM_* environment on this host, and release the allocation
 * when it exits, printing Slurm's "Granted" / "Relinquishing" lines.
 */
import { hostname } from "node:os";
import { spawn } from "node:child_process";
import { parseSallocArgs } from "../../compat/options/interactive-args.ts";
import { errorText, rejectionText, warningText } from "../../compat/options/messages.ts";
import { buildSallocEnv } from "../../compat/job-env.ts";
import { tuningEnvOf } from "../../compat/options/apply-tuning.ts";
import { containerEnvOf } from "../../compat/container-request.ts";
import { RpcError } from "../../net/ctl-port.ts";
import { lookupUid } from "../../net/users.ts";
import { allocate, cancelAllocation, hetComponentsOf, release, watchAllocation } from "./allocation.ts";
import { hetSallocEnv } from "../../compat/het-env.ts";
import { clusterNameOf, confPath, readConf } from "../conf-file.ts";
import { sallocDefaultCommand } from "../../compat/salloc-default.ts";
import { selfExec } from "../self-exec.ts";
import { expandEntry, readHostfile } from "./hostfile.ts";
import { applyHostfile, arbitraryNodelist, hostfileAskOf, hostfileRequest, sallocArbitraryCheck, sallocTaskCount } from "../../compat/job-hostfile.ts";
import { expandHostlist } from "../../compat/hostlist.ts";

export async function main(argv: string[]): Promise<number> {
  const parsed = parseSallocArgs(argv, process.env, { invoker: { cwd: process.cwd(), hostname: hostname(), umask: process.umask() }, now: Date.now() / 1000 });
  if (!parsed.ok) {
    process.stderr.write(errorText("salloc", parsed.error));
    return parsed.error.exitCode ?? 1;
  }
  const r = parsed.value;
  if (r.kind === "exit") {
    (await import("../closed-pipe.ts")).endQuietlyOnClosedPipe(); // `srun --help | head`
    process.stdout.write(r.stdout);
    return r.exitCode;
  }
  if (r.warnings.length > 0) process.stderr.write(warningText("salloc", r.warnings));
  const hostfile = withHostfile(r.spec, process.env.SLURM_HOSTFILE);
  if (hostfile.kind === "error") {
    process.stderr.write(hostfile.lines.map((l) => `salloc: error: ${l}\n`).join(""));
    return 1;
  }
  const spec = applyHostfile(r.spec, hostfile);
  const list = arbitraryNodelist(spec.distribution, spec.nodelist, hostfile.kind === "use" ? hostfile.hosts : undefined);
  let job;
  try {
    const het = (r.het ?? []).map((h) => ({ ...h, name: h.name || r.spec.name || "interactive" }));
    job = await allocate("salloc", { ...spec, name: spec.name || "interactive" }, r.settings.quiet, r.settings.immediateSec, het);
  } catch (error) {
    process.stderr.write(error instanceof RpcError ? rejectionText("salloc", error.message, r.spec.partition) : `salloc: error: ${String(error)}\n`);
    return 1;
  }
  if (!r.settings.quiet) process.stderr.write(`salloc: Granted job allocation ${job.jobId}\n`);
  // --no-shell: the allocation outlives salloc (until scancel or its time limit); steps join it with srun --jobid
  if (r.settings.noShell) return 0;
  // -m arbitrary: the shell's tasks are laid over the list; Slurm gives up when their count differs
  const nodeCount = job.numNodes || job.alloc.length;
  const tasks = sallocTaskCount(r.spec.ntasks, r.spec.ntasksPerNode, nodeCount, job.numCpus, r.spec.cpusPerTask);
  const listed = expandHostlist(list);
  const refusal = list === "" ? "" : sallocArbitraryCheck(tasks, listed.ok ? listed.value.length : 0);
  if (refusal !== "") {
    process.stderr.write(`salloc: error: ${refusal}\n`);
    if (!r.settings.quiet) process.stderr.write(`salloc: Relinquishing job allocation ${job.jobId}\n`);
    await release(job.jobId, 1);
    return 1;
  }
  const submitEnv = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  if (list !== "") submitEnv.SLURM_ARBITRARY_NODELIST = list;
  // the shell's SLURM_NTASKS follows -n only (the file's task count is the request's, not the user's)
  const envSpec = { ...spec, ntasks: r.spec.ntasks };
  // Container options given to salloc reach the srun steps of the allocation through the environment.
  const site = { clusterName: clusterNameOf(confPath()), submitDir: process.cwd() };
  const specs = [envSpec, ...(r.het ?? [])];
  // a heterogeneous allocation: every component's variables under _HET_GROUP_n, SLURM_HET_SIZE
  const base = specs.length > 1
    ? hetSallocEnv(submitEnv, (await hetComponentsOf(job.jobId)).map((c, n) => buildSallocEnv(c, { ...site, submitEnv: {}, ...(specs[n] ? { spec: specs[n] } : {}) })))
    : buildSallocEnv(job, { ...site, submitEnv, spec: envSpec });
  // the variables salloc exports for --cpu-freq, --profile, --mem-bind, ... (apply-tuning.ts)
  const env = { ...base, ...tuningEnvOf(spec.env), ...containerEnvOf(spec.env) };
  const shell = process.env.SHELL || lookupUid(process.getuid?.() ?? 0).shell || "/bin/sh";
  const command = r.command.length > 0 ? r.command : defaultCommand(shell);
  let revoking = false;
  let revokedElsewhere = false;
  let stopWatch = (): void => undefined;
  const code = await new Promise<number>((resolve) => {
    const child = spawn(command[0] ?? shell, command.slice(1), { stdio: "inherit", env });
    // salloc itself terminated (SIGTERM, SIGHUP: its terminal went away): the allocation is revoked, not
    // left running with nobody to release it (oracle: "Job allocation N has been revoked.", job CANCELLED);
    // the command gets --kill-command's signal when one was asked for
    const revoke = (signal: NodeJS.Signals) => {
      revoking = true;
      stopWatch();
      void cancelAllocation(job.jobId).finally(() => {
        process.stderr.write(`salloc: Job allocation ${job.jobId} has been revoked.\n`);
        if (r.settings.killCommandSignal !== undefined) child.kill(r.settings.killCommandSignal);
        process.exit(128 + (signal === "SIGHUP" ? 1 : 15));
      });
    };
    // the allocation ended without salloc (scancel, time limit): Slurm's line; the command runs on
    // unless --kill-command asked for a signal (oracle: salloc then waits for it, no "Relinquishing")
    stopWatch = watchAllocation(job.jobId, () => {
      revokedElsewhere = true;
      process.stderr.write(`salloc: Job allocation ${job.jobId} has been revoked.\n`);
      if (r.settings.killCommandSignal !== undefined) child.kill(r.settings.killCommandSignal);
    });
    process.once("SIGTERM", () => revoke("SIGTERM"));
    process.once("SIGHUP", () => revoke("SIGHUP"));
    child.once("error", (e) => {
      process.stderr.write(`salloc: error: ${command[0]}: ${e.message}\n`);
      resolve(127);
    });
    child.once("exit", (c, s) => resolve(c ?? (s ? 128 : 0)));
  });
  stopWatch();
  // the command ended of the same signal that revokes the allocation: revoke() ends salloc
  if (revoking) await new Promise<never>(() => undefined);
  if (revokedElsewhere) return code;
  if (!r.settings.quiet) process.stderr.write(`salloc: Relinquishing job allocation ${job.jobId}\n`);
  await release(job.jobId, code);
  return code;
}

/**
 * salloc without a command (compat/salloc-default.ts): the interactive step through this binary's
 * srun role when LaunchParameters=use_interactive_step, else SallocDefaultCommand= or the shell.
 */
function defaultCommand(shell: string): string[] {
  let globals: ReadonlyMap<string, string> = new Map();
  try {
    globals = readConf(confPath()).globals;
  } catch {
    // no readable configuration: the shell
  }
  const chosen = sallocDefaultCommand({
    shell, launchParameters: globals.get("launchparameters"), interactiveStepOptions: globals.get("interactivestepoptions"),
    sallocDefaultCommand: globals.get("sallocdefaultcommand"),
  });
  return chosen.srun ? [...selfExec(), "srun", ...chosen.argv] : chosen.argv;
}

/** SLURM_HOSTFILE (read when -w is not given, whatever -m says; compat/job-hostfile). */
function withHostfile(spec: Parameters<typeof hostfileAskOf>[0], path: string | undefined): ReturnType<typeof hostfileRequest> {
  if (path === undefined || path === "" || spec.nodelist !== "") return { kind: "none" };
  const { text, why } = readHostfile(path);
  return hostfileRequest(hostfileAskOf(spec), path, text, expandEntry, why);
}
