/**
 * @module cli/sbatch
 * sbatch: parse the command line, read the script (file, stdin or --wrap), fold #SBATCH
 * lines + SBATCH_* variables + options into a JobSpec, submit it, print Slurm's lines, and
 * with --wait poll until the job ends and exit with its status. All I/O goes through the
 * CliPort; the rules live in src/compat/options.
 */
import { RpcError, type CliPort, type CliResult } from "../net/ctl-port.ts";
import { ok, err, type Result, type SpurError } from "../lib/result.ts";
import type { Plain } from "../lib/plain.ts";
import type { SubmitResponse } from "../net/gen/spur/v1/controller_pb.ts";
import type { BatchScript, Built } from "../compat/options/build-spec.ts";
import { errorText, rejectionText, testOnlyFailureText, warningText } from "../compat/options/messages.ts";
import type { ParsedArgs } from "../compat/options/parse-args.ts";
import { splitComponents } from "../compat/options/het-components.ts";
import { wrapScript } from "../compat/options/script-directives.ts";
import { commandCandidates, lookupDir } from "../compat/options/script-command.ts";
import { checkClusters } from "../compat/cluster-names.ts";
import { isArbitrary } from "../compat/task-layout.ts";
import * as flow from "../compat/options/sbatch-flow.ts";
import { withTimeFormat } from "../compat/format-time.ts";
import { applyHostfile, arbitraryNodelist, hostfileAskOf, hostfileRequest } from "../compat/job-hostfile.ts";
import { expandHostlist } from "../compat/hostlist.ts";

/** --wait: first pause between polls, growth factor and cap (Slurm: 2 s, x4, capped). */
const WAIT_DELAY_MS_MIN = 2000;
const WAIT_DELAY_MS_MAX = 10000;
/** How long one WaitJob call may block in the controller. */
const WAIT_RPC_TIMEOUT_MS = 60000;
/** Bounds: polls before giving up (about 30 days at the cap), controller outages tolerated in a row. */
const WAIT_POLLS_MAX = 260000;
const WAIT_UNAVAILABLE_MAX = 30;

interface Out {
  stdout: string;
  stderr: string;
  exitError: number;
}

/** SLURM_EXIT_ERROR changes the exit code of ordinary errors (not getopt's 255). */
function exitErrorOf(env: CliPort["env"]): number {
  const v = env.SLURM_EXIT_ERROR;
  return v !== undefined && /^[0-9]+$/.test(v) && Number(v) > 0 ? Number(v) : 1;
}

function fail(out: Out, e: SpurError): CliResult {
  const exitCode = e.exitCode === undefined || e.exitCode === 1 ? out.exitError : e.exitCode;
  return { stdout: out.stdout, stderr: out.stderr + warningText("sbatch", e.warningsBefore ?? []) + errorText("sbatch", e), exitCode };
}

async function loadScript(args: ParsedArgs, port: CliPort): Promise<Result<BatchScript>> {
  const wrap = flow.lastValue(args.options, "wrap");
  const [path, ...rest] = args.operands;
  if (wrap !== undefined) {
    if (path !== undefined) return err("WrapWithScript", "Script arguments not permitted with --wrap option");
    return ok({ text: wrapScript(wrap), from: "wrap", args: [] });
  }
  if (path === undefined) return ok({ text: await port.readStdin(), from: "stdin", args: [] });
  const text = await port.readFile(path);
  if (text === undefined) return err("NoScript", `Unable to open file ${path}`);
  const command = await scriptCommand(port, path, flow.lastValue(args.options, "chdir"));
  return ok({ text, from: "file", path, args: rest, ...(command === undefined ? {} : { command }) });
}

/**
 * Command= of a script file: the first lookup candidate that exists, else the path as typed
 * (compat/options/script-command.ts); undefined (the absolute path) for a port that cannot look.
 */
async function scriptCommand(port: CliPort, path: string, chdir: string | undefined): Promise<string | undefined> {
  if (port.fileExists === undefined) return undefined;
  for (const candidate of commandCandidates(path, lookupDir(port.invoker.cwd, chdir), port.env.PATH)) {
    if (await port.fileExists(candidate)) return candidate;
  }
  return path;
}

/** SLURM_TIME_FORMAT applies to every time this command prints (compat/format-time.ts). */
export const sbatchMain = (argv: string[], port: CliPort): Promise<CliResult> =>
  withTimeFormat("sbatch", port.env, port.now(), () => sbatchRun(argv, port));

async function sbatchRun(argv: string[], port: CliPort): Promise<CliResult> {
  const out: Out = { stdout: "", stderr: "", exitError: exitErrorOf(port.env) };
  const split = splitComponents("sbatch", argv);
  if (!split.ok) return fail(out, split.error);
  const early = flow.earlyAction("sbatch", split.value.components.flat());
  const ctx = { cmd: "sbatch" as const, argv, env: port.env, invoker: port.invoker, now: port.now() };
  if (early !== undefined) {
    const before = flow.refusedBeforeEarly(ctx, split.value.components.flat());
    return before.ok ? { stdout: early, stderr: "", exitCode: 0 } : fail(out, before.error);
  }
  const all: ParsedArgs = { options: split.value.components.flat(), operands: split.value.operands };
  const script = await loadScript(all, port);
  if (!script.ok) return fail(out, script.error);
  const components = flow.sbatchRequests(ctx, split.value.components, script.value);
  if (!components.ok) return fail(out, components.error);
  const [leader, ...rest] = components.value;
  if (leader === undefined) return fail(out, { code: "NoJob", message: "no job request" });
  // The options that act on sbatch itself (--parsable, --wait, -Q, --test-only) carry over: the last component has them all.
  const built: Built = { ...leader, settings: (rest[rest.length - 1] ?? leader).settings };
  const { settings } = built;
  const hostfile = await withHostfile(port, built.spec);
  if (hostfile.kind === "error") {
    return { stdout: out.stdout, stderr: out.stderr + hostfile.lines.map((l) => `sbatch: error: ${l}\n`).join(""), exitCode: out.exitError };
  }
  // -m arbitrary places tasks on listed nodes: with neither -w nor SLURM_HOSTFILE there is no list (oracle 22.05, differential seed 12803)
  if (isArbitrary(hostfile.spec.distribution) && hostfile.spec.nodelist === "") {
    return fail(out, { code: "ArbitraryWithoutList", message: "With Arbitrary distribution you need to specify a nodelist or hostfile with the -w option" });
  }
  built.spec = withArbitraryList(hostfile.spec, hostfile.hosts);
  // -M naming clusters the site does not know: an error line each, and no submission when none is left (oracle 22.05)
  const clusters = settings.clusters === undefined || port.invoker.clusterName === undefined ? undefined : checkClusters(settings.clusters, [port.invoker.clusterName]);
  if (clusters !== undefined) {
    out.stderr += clusters.errors.map((e) => `sbatch: error: ${e}\n`).join("");
    if (!clusters.reachable) return { stdout: out.stdout, stderr: out.stderr, exitCode: out.exitError };
  }
  // -Q hides warnings, not Slurm's own error lines (oracle: -Q -S 1 still prints "error: Ignoring -S ...")
  const warnings = components.value.flatMap((c) => c.warnings);
  out.stderr += warningText("sbatch", settings.quiet ? warnings.filter((w) => w.startsWith("error: ")) : warnings);
  out.stderr += (leader.defined ?? []).map((l) => `sbatch: ${l}\n`).join("");
  const resp = await submit(port, built, rest.map((c) => c.spec), out);
  if (resp === undefined) return { stdout: out.stdout, stderr: out.stderr, exitCode: out.exitError };
  if (!settings.quiet) out.stderr += resp.warnings.map((w) => `sbatch: ${w}\n`).join("");
  if (settings.testOnly) {
    // the estimate is an informational line: -Q hides it (oracle 22.05, differential seed 12207)
    if (!settings.quiet) out.stderr += flow.testOnlyText("sbatch", resp);
    return { stdout: out.stdout, stderr: out.stderr, exitCode: 0 };
  }
  out.stdout += flow.submittedText(resp.jobId, settings, resp.cluster);
  if (!settings.wait) return { stdout: out.stdout, stderr: out.stderr, exitCode: 0 };
  port.write("stdout", out.stdout);
  port.write("stderr", out.stderr);
  return waitForJob(port, resp.jobId, built.spec.array !== "" || rest.length > 0);
}

type HostfileRead = { kind: "error"; lines: string[] } | { kind: "ok"; spec: Built["spec"]; hosts?: string[] };

/** SLURM_HOSTFILE (read when -w is not given, whatever -m says): the nodes the job requires. */
async function withHostfile(port: CliPort, spec: Built["spec"]): Promise<HostfileRead> {
  const path = port.env.SLURM_HOSTFILE;
  if (path === undefined || path === "" || spec.nodelist !== "") return { kind: "ok", spec };
  const text = await port.readFile(path);
  const outcome = hostfileRequest(hostfileAskOf(spec), path, text, (e) => {
    const x = expandHostlist(e);
    return x.ok ? x.value : undefined;
  });
  if (outcome.kind === "error") return outcome;
  return outcome.kind === "use" ? { kind: "ok", spec: applyHostfile(spec, outcome), hosts: outcome.hosts } : { kind: "ok", spec };
}

/** -m arbitrary: the job's environment carries the task list (SLURM_ARBITRARY_NODELIST), as sbatch's. */
function withArbitraryList(spec: Built["spec"], hosts: string[] | undefined): Built["spec"] {
  const list = arbitraryNodelist(spec.distribution, spec.nodelist, hosts);
  return list === "" ? spec : { ...spec, env: { ...spec.env, SLURM_ARBITRARY_NODELIST: list } };
}

async function submit(port: CliPort, built: Built, hetComponents: Built["spec"][], out: Out): Promise<Plain<SubmitResponse> | undefined> {
  try {
    return await port.ctl.submit({ spec: built.spec, testOnly: built.settings.testOnly, hetComponents });
  } catch (e) {
    if (!(e instanceof RpcError)) throw e;
    const explain = built.settings.testOnly ? testOnlyFailureText : rejectionText;
    out.stderr += explain("sbatch", e.message, built.spec.partition);
    return undefined;
  }
}

type Poll = { kind: "done"; exitCode: number } | { kind: "pending" } | { kind: "gone" } | { kind: "down"; message: string };

async function pollOnce(port: CliPort, jobId: number, array: boolean): Promise<Poll> {
  try {
    const w = await port.ctl.waitJob({ jobId, untilStates: [], timeoutMs: WAIT_RPC_TIMEOUT_MS });
    if (w.job === undefined) return { kind: "gone" };
    if (!array) return flow.isFinished(w.job) ? { kind: "done", exitCode: flow.waitExitCode([w.job]) } : { kind: "pending" };
    const list = await port.ctl.listJobs({ jobIds: [jobId], includeFinished: true });
    const records = list.jobs.filter((j) => j.jobId === jobId || j.arrayJobId === jobId || j.hetJobId === jobId);
    if (records.length === 0) return { kind: "gone" };
    return records.every(flow.isFinished) ? { kind: "done", exitCode: flow.waitExitCode(records) } : { kind: "pending" };
  } catch (e) {
    if (!(e instanceof RpcError)) throw e;
    if (/invalid job id/i.test(e.message)) return { kind: "gone" };
    return { kind: "down", message: e.message };
  }
}

/** sbatch --wait: poll until every record of the job has ended; exit with its status. */
async function waitForJob(port: CliPort, jobId: number, array: boolean): Promise<CliResult> {
  let delayMs = WAIT_DELAY_MS_MIN;
  let downInRow = 0;
  for (let poll = 0; poll < WAIT_POLLS_MAX; poll++) {
    const r = await pollOnce(port, jobId, array);
    if (r.kind === "done") return { stdout: "", stderr: "", exitCode: r.exitCode };
    if (r.kind === "gone") return { stdout: "", stderr: `sbatch: Job ${jobId} no longer found and exit code not found\n`, exitCode: 0 };
    downInRow = r.kind === "down" ? downInRow + 1 : 0;
    if (r.kind === "down" && downInRow >= WAIT_UNAVAILABLE_MAX) {
      return { stdout: "", stderr: `sbatch: error: ${r.message}\n`, exitCode: exitErrorOf(port.env) };
    }
    await port.sleep(delayMs);
    delayMs = Math.min(delayMs * 4, WAIT_DELAY_MS_MAX);
  }
  return { stdout: "", stderr: `sbatch: error: gave up waiting for job ${jobId}\n`, exitCode: exitErrorOf(port.env) };
}
