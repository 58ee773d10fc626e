/**
 * @module roles/cli/sattach
 * sattach JOB.STEP: show a running step's output here, as it comes, starting
 * with what each node's agent kept of it (agent/step-attach.ts), until the step
 * ends. Only the job's owner or root may attach: the agents check the caller's
 * proven uid against the controller's record and answer "no tasks running"
 * otherwise, as Slurm's sattach prints for another user's step (oracle).
 * `-l` labels lines with the task id, --output-filter/--error-filter show one
 * task's streams, --layout prints the task layout. sattach's stdin goes to the
 * step's tasks that read stdin (--input-filter: one of them), and its end closes
 * their stdin, as on the oracle. Not done: --pty.
 */
import { credentialInterceptor } from "../../net/auth/client-cred.ts";
import { nodeAudience } from "../../net/auth/types.ts";
import { createClient, ConnectError, Code, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { layoutText, parseSattachArgs, type SattachParams } from "../../compat/sattach-args.ts";
import { SLURM_VERSION_LINE } from "../../compat/slurm-release.ts";
import { endQuietlyOnClosedPipe } from "../closed-pipe.ts";
import { taskRanks } from "../../compat/task-layout.ts";
import type { StreamTarget } from "../../compat/srun-io.ts";
import { Agent } from "../../net/gen/spur/v1/agent_pb.ts";
import { connectTls, rpcUrl } from "../../net/tls.ts";
import { RpcError } from "../../net/ctl-port.ts";
import { controllerPort, resolveControllerUrls } from "./port.ts";
import { TaskOutput } from "./task-output.ts";

export async function main(argv: string[]): Promise<number> {
  endQuietlyOnClosedPipe(); // `sattach J.S | head`: end as Slurm's does, of SIGPIPE
  const args = parseSattachArgs(argv, SLURM_VERSION_LINE);
  if (args.kind === "exit") {
    process.stdout.write(args.stdout);
    process.stderr.write(args.stderr);
    return args.exitCode;
  }
  const p = args.params;
  const port = controllerPort(resolveControllerUrls());
  const fail = (why: string) => {
    process.stderr.write(`sattach: error: Could not get job step info: ${why}\n`);
    return 1;
  };
  let jobs;
  try {
    jobs = await port.listJobs({ jobIds: [p.jobId], includeFinished: true, includeSteps: true, windowStart: 0, windowEnd: 0 });
  } catch (error) {
    if (error instanceof RpcError) return fail(error.message);
    throw error;
  }
  const job = (jobs.jobs ?? []).find((j) => j.jobId === p.jobId);
  if (job === undefined) return fail("Invalid job id specified");
  if (job.state !== "RUNNING") return fail("Job/step already completing or completed");
  const step = (job.steps ?? []).find((s) => s.stepId === p.stepId && s.state === "RUNNING");
  if (step === undefined) return fail("Invalid job id specified");
  const shares = step.alloc ?? [];
  const ranks = taskRanks(shares.map((s) => s.tasks), "");
  if (p.layout) {
    process.stdout.write(layoutText(step.nodelist, shares.map((s, i) => ({ name: s.node, taskIds: ranks[i] ?? [] }))));
    return 0;
  }
  const nodes = await port.listNodes();
  const sessions: Session[] = [];
  let waiting = shares.length;
  const attached = (session: Session | undefined) => {
    if (session !== undefined) sessions.push(session);
    if (--waiting === 0) void forwardStdin(sessions, p); // once every node answered, as Slurm's sattach
  };
  await Promise.all(shares.map((s) => {
    const n = (nodes.nodes ?? []).find((x) => x.name === s.node);
    return follow(s.node, rpcUrl(n?.addr ?? "", n?.port ?? 0), p, outputFor(p, ranks.flat()), attached);
  }));
  return 0;
}

interface Session {
  client: Client<typeof Agent>;
  token: string;
}

/** sattach's stdin to every node's tasks that read stdin (--input-filter: one task); its end closes their stdin (oracle). */
async function forwardStdin(sessions: readonly Session[], p: SattachParams): Promise<void> {
  if (sessions.length === 0) return;
  const send = (data: Uint8Array, eof: boolean) =>
    Promise.all(sessions.map((s) => s.client.stepInput({ jobId: p.jobId, stepId: p.stepId, token: s.token, taskId: p.inputFilter, data, eof }).catch(() => undefined)));
  try {
    for await (const chunk of process.stdin) await send(new Uint8Array(chunk as Buffer), false);
  } catch {
    // an unreadable stdin reads as its end
  }
  await send(new Uint8Array(0), true);
}

/** Where each task's streams go: this terminal, or nowhere for the tasks a filter leaves out. */
function outputFor(p: SattachParams, taskIds: readonly number[]): TaskOutput {
  const pick = (filter: number, t: number): StreamTarget => (filter < 0 || filter === t ? { kind: "terminal" } : { kind: "discard" });
  const targets = new Map(taskIds.map((t) => [t, { out: pick(p.outputFilter, t), err: pick(p.errorFilter, t) }]));
  const width = String(Math.max(0, Math.max(...taskIds, 0))).length;
  return new TaskOutput(targets, p.label, false, width);
}

/** One node's share of the step, until it ends there; "no tasks running" when the agent has none of it (or refuses). */
async function follow(node: string, url: string, p: SattachParams, output: TaskOutput, attached: (s: Session | undefined) => void): Promise<void> {
  const client = createClient(Agent, createConnectTransport({ baseUrl: url, httpVersion: "1.1", interceptors: [credentialInterceptor(nodeAudience(node))], ...connectTls(url) }));
  let told = false;
  const tell = (s: Session | undefined) => {
    if (!told) attached(s);
    told = true;
  };
  try {
    for await (const frame of client.attachStep({ jobId: p.jobId, stepId: p.stepId })) {
      if (frame.attachToken !== "") {
        tell({ client, token: frame.attachToken });
        continue;
      }
      if (frame.stdout.length > 0) output.write(frame.taskId, "out", frame.stdout);
      if (frame.stderr.length > 0) output.write(frame.taskId, "err", frame.stderr);
      if (frame.exited) output.ended(frame.taskId);
    }
  } catch (error) {
    const e = ConnectError.from(error);
    process.stderr.write(e.code === Code.NotFound ? `sattach: ${e.rawMessage}\n` : `sattach: error: Node ${node}: ${e.rawMessage}\n`);
  }
  tell(undefined);
  output.close();
}
