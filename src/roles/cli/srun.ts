/**
 * @module roles/cli/srun
 * srun: inside an allocation (SLURM_JOB_ID or --jobid) it runs a step of that
 * job; outside one it first gets its own allocation (and releases it when the
 * step ends). Ctrl-C cancels the step, as with Slurm's srun.
 */
import { hostname } from "node:os";
import { hetGroupEnv, hetGroupJobId } from "../../compat/het-env.ts";
import { basename } from "node:path";
import { containerEnvOf } from "../../compat/container-request.ts";
import { NODES_LOWERED, parseSrunArgs } from "../../compat/options/interactive-args.ts";
import { errorText, rejectionText, warningText } from "../../compat/options/messages.ts";
import { RpcError } from "../../net/ctl-port.ts";
import { lookupUid } from "../../net/users.ts";
import { clusterNameOf, confPath } from "../conf-file.ts";
import { call } from "./port.ts";
import { allocate, cancelAllocation, ctlUrl, release } from "./allocation.ts";
import { runStep, type StepCalls, type StepRequest } from "./step-launch.ts";
import { hetStepJobIds, runHetStep } from "./srun-het.ts";
import { hetStepNodeSlices } from "../../compat/het-step.ts";
import { RELATIVE_OUTSIDE, relativeNodes } from "../../compat/srun-relative.ts";
import { srunScriptPath } from "./srun-scripts.ts";
import { compressHostlist, expandHostlist } from "../../compat/hostlist.ts";
import { srunTaskEnvironment } from "../../compat/options/export-env.ts";
import { tuningEnvOf } from "../../compat/options/apply-tuning.ts";
import { parseProcLimits } from "../../agent/task-setup.ts";
import { onInterrupt, type InterruptStep } from "../../compat/srun-interrupt.ts";
import { hostfileAskOf, hostfileRead } from "../../compat/job-hostfile.ts";
import { expandEntry, readHostfile } from "./hostfile.ts";
import { readFileSync } from "node:fs";
import { testOnlyText } from "../../compat/options/sbatch-flow.ts";
import type { Plain } from "../../lib/plain.ts";
import type { StepCreateResponse } from "../../net/gen/spur/v1/controller_pb.ts";
import { BUSY_CODE, createStepWaiting, StepWaitCancelled } from "./step-wait.ts";
import { cancelledWaitLines, STEP_NODES_BUSY } from "../../compat/srun-step-wait.ts";
import { loadMultiProg } from "./multi-prog-file.ts";
import { chooseMpi, mpiListText, type PmixAvailability } from "../../compat/mpi-type.ts";
import { readConf } from "../conf-file.ts";

export async function main(argv: string[]): Promise<number> {
  // --het-group=N: component N's variables stand for the job's (SLURM_JOB_NUM_NODES_HET_GROUP_N, ...)
  const env = hetGroupEnv(argv, process.env);
  // --mpi=list needs no command (oracle: the list on stdout, exit 0)
  if (mpiListAsked(argv)) {
    process.stdout.write(mpiListText(await pmixAvailability()));
    return 0;
  }
  const parsed = parseSrunArgs(argv, env, { invoker: { cwd: process.cwd(), hostname: hostname(), umask: process.umask() }, now: Date.now() / 1000 });
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
  // a het step in an ordinary allocation: its components' node counts are their own, not the job's (oracle: no warning)
  if (r.het !== undefined && env.SLURM_JOB_ID !== undefined && env.SLURM_HET_SIZE === undefined) r.warnings = r.warnings.filter((w) => !w.startsWith(NODES_LOWERED));
  if (r.warnings.length > 0) process.stderr.write(warningText("srun", r.warnings));
  // --interactive (salloc's interactive step, LaunchParameters=use_interactive_step): one task on the
  // allocation's first node, whatever the allocation's SLURM_NTASKS/SLURM_NNODES say
  if (r.settings.interactive) {
    r.spec.ntasks = 1;
    r.spec.nodesMin = 1;
    r.spec.nodesMax = 1;
    r.spec.ntasksPerNode = 0;
  }
  if (r.settings.verbose > 0) {
    const { definedOptionsDump } = await import("../../compat/options/srun-verbose.ts");
    process.stderr.write(definedOptionsDump(argv.slice(0, argv.length - r.command.length), process.env));
  }
  const hostfile = withHostfile(r.spec, process.env.SLURM_HOSTFILE);
  if (hostfile.length > 0) {
    process.stderr.write(hostfile.map((l) => `srun: error: ${l}\n`).join(""));
    return 1;
  }
  // --multi-prog FILE: checked (and the task count taken from it) before anything is allocated, as srun does
  let taskArgv: ((taskId: number, node: string) => string[]) | undefined;
  if (r.settings.multiProg) {
    const loaded = loadMultiProg(r.command[0] ?? "", r.command.slice(1), r.spec.ntasks);
    if (typeof loaded === "string") {
      process.stderr.write(loaded);
      return 1;
    }
    r.spec.ntasks = loaded.ntasks;
    taskArgv = loaded.taskArgv;
  }
  // --mpi / SLURM_MPI_TYPE, else MpiDefault=: refused before anything is allocated, as srun does
  const mpiName = r.settings.mpi ?? mpiDefault();
  const mpi = chooseMpi(mpiName, undefined, /^(pmix|list)/i.test(mpiName?.trim() ?? "") ? await pmixAvailability() : { kind: "missing", reason: "" });
  if (mpi.kind !== "ok") {
    if (mpi.kind === "list") process.stdout.write(mpi.stdout);
    else process.stderr.write(mpi.stderr);
    return mpi.kind === "list" ? 0 : 1;
  }
  // --bcast: the program must be there to copy before anything is allocated (oracle: "Can not execute")
  let bcastSource: string | undefined;
  if (r.settings.bcast !== undefined && !r.settings.multiProg) {
    const { executablePath } = await import("./srun-bcast.ts");
    bcastSource = executablePath(r.command[0] ?? "", r.spec.workDir || process.cwd(), env.PATH);
    if (bcastSource === undefined) {
      process.stderr.write(`srun: fatal: Can not execute ${r.command[0] ?? ""}\n`);
      return 1;
    }
  }
  // --test-only: the start estimate on stderr, nothing runs (as sbatch --test-only)
  if (r.settings.testOnly) return testOnly(r.spec);
  (await import("../closed-pipe.ts")).dropOutputOnClosedPipe(); // `srun CMD | head -1`
  const uid = process.getuid?.() ?? 0;
  const user = lookupUid(uid);
  const url = ctlUrl();
  let jobId = r.settings.jobId ?? 0;
  if (r.settings.hetGroup !== undefined && jobId !== 0) {
    const target = hetGroupJobId(env, r.settings.hetGroup);
    if (typeof target === "string") {
      process.stderr.write(`srun: error: ${target}\n`);
      return 1;
    }
    jobId = target;
  }
  let waitingForStep = false;
  const own = jobId === 0;
  // -r/--relative=N: the step takes the allocation's nodes from node N on (compat/srun-relative.ts)
  if (r.settings.relative !== undefined) {
    if (own) {
      process.stderr.write(`srun: fatal: ${RELATIVE_OUTSIDE}\n`);
      return 1;
    }
    const jobNodes = expandHostlist(env.SLURM_JOB_NODELIST ?? env.SLURM_NODELIST ?? "");
    const cliOptions = argv.slice(0, argv.length - r.command.length);
    const nodesOnCli = cliOptions.some((a) => /^-N/.test(a) || a === "--nodes" || a.startsWith("--nodes="));
    const nodes = relativeNodes(jobNodes.ok ? jobNodes.value : [], r.settings.relative, Math.max(1, r.spec.nodesMin), nodesOnCli);
    if (typeof nodes === "string") {
      process.stderr.write(`srun: error: ${nodes}\n`);
      return 1;
    }
    r.spec = { ...r.spec, nodelist: compressHostlist(nodes), nodesMin: nodes.length, nodesMax: nodes.length };
  }
  const abort = new AbortController();
  // --export (or SLURM_EXPORT_ENV / SRUN_EXPORT_ENV): only what it names reaches the tasks
  let baseEnv: Record<string, string> = srunTaskEnvironment(r.spec.export || undefined, env);
  if (r.settings.cpuBind !== undefined) baseEnv.SLURM_CPU_BIND = r.settings.cpuBind; // spurd binds the tasks from it
  // --container-image and friends reach spurd in the tasks' environment (as Slurm forwards SPANK options)
  baseEnv = { ...baseEnv, ...containerEnvOf(r.spec.env) };
  // --cpu-freq and --mem-bind reach the tasks as srun sets them (SLURM_CPU_FREQ_REQ, SLURM_MEM_BIND_*: apply-tuning.ts)
  baseEnv = { ...baseEnv, ...tuningEnvOf(r.spec.env) };
  try {
    if (own) {
      const job = await allocate("srun", r.spec, r.settings.quiet, r.settings.immediateSec, r.het ?? []);
      jobId = job.jobId;
      baseEnv = { ...baseEnv, SLURM_JOB_ID: String(jobId) };
    }
    // Ctrl-C: the first reports the step, a second within a second aborts it (compat/srun-interrupt.ts)
    let lastInterruptMs: number | undefined;
    let current: InterruptStep | undefined;
    const disableStatus = r.settings.disableStatus;
    const quitOnInterrupt = r.settings.quitOnInterrupt;
    // Ctrl-C while the step waits for CPUs other steps hold: srun gives up at once (compat/srun-step-wait.ts)
    const waiting = new AbortController();
    process.on("SIGINT", () => {
      if (current === undefined && waitingForStep) return waiting.abort();
      // -X/--disable-status: every Ctrl-C goes to the tasks as SIGINT, no status report (oracle line)
      if (disableStatus && current !== undefined) {
        const step = current;
        process.stderr.write(`srun: sending Ctrl-C to StepId=${step.jobId}.${step.stepId}\n`);
        void call(url, "Cancel", { filter: { jobIds: [`${step.jobId}.${step.stepId}`] }, signal: 2 }).catch(() => undefined);
        return;
      }
      const now = Date.now();
      // --quit-on-interrupt: the first Ctrl-C ends the step, as a second one within a second does
      const r = onInterrupt(quitOnInterrupt ? now : lastInterruptMs, now, current);
      lastInterruptMs = now;
      process.stderr.write(r.lines.map((l) => `${l}\n`).join(""));
      if (r.abort) abort.abort();
    });
    // a step inside an existing allocation is named after its command unless -J says otherwise
    // (SLURM_JOB_NAME, which srun reads as input, names allocations only): x-squeue-steps
    const options = argv.slice(0, argv.length - r.command.length);
    const named = options.some((a) => a === "-J" || (a.startsWith("-J") && !a.startsWith("--")) || a.startsWith("--job-name"));
    const stepSpecOf = (spec: typeof r.spec, command: readonly string[]) => (own || named ? spec : { ...spec, name: basename(command[0] ?? "") || spec.name });
    const requestFor = (stepJobId: number, spec: typeof r.spec, command: string[]): StepRequest => ({
      jobId: stepJobId, spec: stepSpecOf(spec, command), command, label: r.settings.label, baseEnv, confPath: confPath(),
      clusterName: clusterNameOf(confPath()), umask: process.umask(), setup: taskSetup(r.settings.taskProlog, r.settings.taskEpilog),
      uid, gid: process.getgid?.() ?? user.gid, user: user.name, cwd: spec.workDir || process.cwd(),
      // --exclusive inside an allocation is a step of only its own CPUs (Slurm: it implies --exact)
      exact: r.settings.exact || spec.cpusPerGpu > 0 || (!own && spec.exclusive), host: hostname(), verbose: r.settings.verbose,
      preserveEnv: r.settings.preserveEnv, unbuffered: r.settings.unbuffered, pty: r.settings.pty, mpi: mpi.type,
      interactive: r.settings.interactive && !own, ...(r.settings.waitSec === undefined ? {} : { waitSec: r.settings.waitSec }),
      killOnBadExit: (r.settings.killOnBadExit ?? Number(confValue("killonbadexit") ?? 0)) > 0, ...(taskArgv === undefined ? {} : { taskArgv }),
      srunScripts: srunScripts(r.settings.srunProlog, r.settings.srunEpilog), ...(bcastSource === undefined ? {} : { bcast: { source: bcastSource, dest: r.settings.bcast ?? "" } }),
      onCreated: (step, killWaitSec) => {
        current = { jobId: stepJobId, stepId: step.stepId, ntasks: step.ntasks, killWaitSec, ownAllocation: own };
      },
    });
    const callsFor = (stepJobId: number): StepCalls => ({
      // Slurm names the job a refused step was for: "Unable to create step for job 7: More processors requested than permitted"
      stepCreate: (req) => {
        const once = () => call<Plain<StepCreateResponse>>(url, "StepCreate", req).catch((e: unknown) => {
          if (e instanceof RpcError && e.code === BUSY_CODE && !own && r.settings.immediateSec === undefined) waitingForStep = true;
          throw e instanceof RpcError ? new RpcError(e.code, `Unable to create step for job ${stepJobId}: ${e.message}`) : e;
        });
        const view = { jobId: stepJobId, reason: STEP_NODES_BUSY, quiet: r.settings.quiet, verbose: r.settings.verbose };
        const write = (t: string) => process.stderr.write(t);
        return createStepWaiting(once, { ...view, immediate: own || r.settings.immediateSec !== undefined, cancel: waiting.signal, write });
      },
      stepComplete: (req) => call(url, "StepComplete", req),
      signalStep: (req) => call(url, "Cancel", { filter: { jobIds: [`${req.jobId}.${req.stepId}`] }, signal: req.signal }),
    });
    let result: { exitCode: number; exitSignal: number };
    if (r.het === undefined || r.het.length === 0) result = await runStep(requestFor(jobId, r.spec, r.command), callsFor(jobId), abort.signal);
    else {
      // srun A : B: component n runs in the allocation's het group n (every one in an ordinary allocation's job)
      const jobIds = await hetStepJobIds(own, jobId, r.het.length + 1, env);
      const parts = [{ spec: r.spec, command: r.command }, ...r.het.map((spec, n) => ({ spec, command: r.hetCommands?.[n] ?? r.command }))];
      // in an ordinary allocation the components split the job's nodes between them, in order
      if (!own && new Set(jobIds).size === 1) {
        const jobNodes = expandHostlist(env.SLURM_JOB_NODELIST ?? env.SLURM_NODELIST ?? "");
        const slices = hetStepNodeSlices(jobNodes.ok ? jobNodes.value : [], parts.map((p) => (p.spec.nodesMin > 0 ? p.spec.nodesMin : Math.max(1, p.spec.ntasks))));
        if (typeof slices === "string") {
          process.stderr.write(`srun: error: ${slices}\n`);
          return 1;
        }
        parts.forEach((p, n) => {
          const nodes = slices[n] ?? [];
          p.spec = { ...p.spec, nodelist: compressHostlist(nodes), nodesMin: nodes.length, nodesMax: nodes.length };
        });
      }
      result = await runHetStep(parts.map((p, n) => ({ request: requestFor(jobIds[n] ?? jobId, p.spec, p.command), calls: callsFor(jobIds[n] ?? jobId) })), abort.signal);
    }
    if (own) await release(jobId, result.exitCode, result.exitSignal);
    // aborted by a second Ctrl-C: 128 + SIGINT, as Slurm's srun exits (oracle: rc=130)
    if (abort.signal.aborted) return 130;
    if (result.exitSignal !== 0) return 128 + result.exitSignal;
    return result.exitCode;
  } catch (error) {
    if (own && jobId !== 0) await cancelAllocation(jobId);
    if (error instanceof StepWaitCancelled) {
      process.stderr.write(cancelledWaitLines(jobId, 2).map((l) => `${l}\n`).join(""));
      return 1;
    }
    if (error instanceof RpcError) {
      const text = own && jobId === 0 ? rejectionText("srun", error.message, r.spec.partition) : `srun: error: ${error.message}\n`;
      process.stderr.write(text);
      return 1;
    }
    process.stderr.write(`srun: error: ${(error as Error).message}\n`);
    return 1;
  }
}

/** Whether srun's options (before the command) ask for `--mpi=list`. */
function mpiListAsked(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    if (!a.startsWith("-")) return false;
    if (a === "--mpi=list" || (a === "--mpi" && argv[i + 1] === "list")) return true;
  }
  return false;
}

/** A key of the configuration, lower case (undefined when unset or unreadable). */
function confValue(key: string): string | undefined {
  try {
    return readConf(confPath()).globals.get(key);
  } catch {
    return undefined;
  }
}

/** --prolog/--epilog, else SrunProlog=/SrunEpilog= ("none" turns either off). */
function srunScripts(prolog: string | undefined, epilog: string | undefined): { prolog?: string; epilog?: string } {
  const pro = srunScriptPath(prolog, confValue("srunprolog"));
  const epi = srunScriptPath(epilog, confValue("srunepilog"));
  return { ...(pro === undefined ? {} : { prolog: pro }), ...(epi === undefined ? {} : { epilog: epi }) };
}

/** MpiDefault= of the configuration. */
const mpiDefault = (): string | undefined => confValue("mpidefault");

async function testOnly(spec: Parameters<typeof allocate>[1]): Promise<number> {
  try {
    const resp = await call<Parameters<typeof testOnlyText>[1]>(ctlUrl(), "Submit", { spec: { ...spec, interactive: true }, testOnly: true });
    process.stderr.write(testOnlyText("srun", resp));
    return 0;
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    process.stderr.write(rejectionText("srun", error.message, spec.partition));
    return 1;
  }
}

/** srun's umask and soft limits (Slurm's PropagateResourceLimits=ALL) and its task prolog/epilog, for every task. */
function taskSetup(taskProlog: string | undefined, taskEpilog: string | undefined) {
  let softLimits: Record<string, string> = {};
  try {
    softLimits = parseProcLimits(readFileSync("/proc/self/limits", "utf8"));
    // Bun raises its own open-files limit at start: the user's is the invoking process's (exact when the
    // shell forked srun; a shell that exec'd srun as its last command leaves its parent's here)
    const parent = parseProcLimits(readFileSync(`/proc/${process.ppid}/limits`, "utf8")).nofile;
    if (parent !== undefined) softLimits.nofile = parent;
  } catch {
    // no /proc (not Linux): the tasks keep the node's limits
  }
  return { umask: process.umask(), softLimits, taskProlog: taskProlog ?? "", taskEpilog: taskEpilog ?? "" };
}

/**
 * SLURM_HOSTFILE (oracle: whatever -m says, when -w is not given; the distribution becomes
 * arbitrary): task i runs on the file's host i; the job asks for those nodes, one task per host
 * read unless -n says otherwise. Entries and errors as for sbatch (compat/job-hostfile).
 * Returns Slurm's error lines, none when fine.
 */
function withHostfile(spec: Parameters<typeof allocate>[1], path: string | undefined): string[] {
  const file = path !== undefined && path !== "" && spec.nodelist === "" ? readHostfile(path) : { text: undefined, why: "" };
  const read = hostfileRead(hostfileAskOf(spec), path, file.text, expandEntry, file.why);
  if (read.kind === "error") return read.lines;
  if (read.kind === "none") return [];
  const ntasks = spec.ntasks || read.hosts.length;
  spec.nodelist = read.hosts.slice(0, ntasks).join(",");
  spec.distribution = "arbitrary";
  spec.ntasks = ntasks;
  const nodes = new Set(read.hosts.slice(0, ntasks)).size;
  spec.nodesMin = nodes;
  spec.nodesMax = nodes;
  return [];
}

/** Whether this host can load libpmix (srun lists and accepts pmix only then, as Slurm's plugin loads only with it). */
async function pmixAvailability(): Promise<PmixAvailability> {
  const { loadLibpmix, pmixMajor } = await import("../../agent/pmix/libpmix.ts");
  const loaded = loadLibpmix(process.env);
  if (!loaded.ok) return { kind: "missing", reason: loaded.reason };
  loaded.lib.close();
  return { kind: "found", major: pmixMajor(loaded.version) };
}
