/**
 * @module roles/cli/sbcast
 * sbcast: copy a file to every node of a running job (or step). The source is
 * read here, as the user who runs sbcast; each node's agent writes it block by
 * block as the job's user (agent/file-bcast.ts), after checking with the
 * controller's record that the job is the caller's (or the caller is root),
 * running, and allocated there. Messages and exit codes are Slurm 22.05's
 * (checked on the oracle): a source problem or a job lookup error exits 255, a
 * node that cannot write says `REQUEST_FILE_BCAST(node): <strerror>` and sbcast
 * exits with that errno. -C, -F, --exclude and --send-libs are accepted; Spur
 * sends the file as is, to every node at once.
 */
import { strerrorOf } from "../../lib/strerror.ts";
import { credentialInterceptor } from "../../net/auth/client-cred.ts";
import { nodeAudience } from "../../net/auth/types.ts";
import { closeSync, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { parseSbcastArgs, type SbcastParams } from "../../compat/sbcast-args.ts";
import { SLURM_VERSION_LINE } from "../../compat/slurm-release.ts";
import { endQuietlyOnClosedPipe } from "../closed-pipe.ts";
import { expandHostlist } from "../../compat/hostlist.ts";
import { type ListJobsAnswer, RpcError } from "../../net/ctl-port.ts";
import { Agent } from "../../net/gen/spur/v1/agent_pb.ts";
import { connectTls, rpcUrl } from "../../net/tls.ts";
import { controllerPort, resolveControllerUrls } from "./port.ts";

/** Default and largest block: Slurm's default is the file size or 8 MiB, whichever is smaller. */
const BLOCK_BYTES_DEFAULT = 8 * 1024 * 1024;
const BLOCK_BYTES_MAX = 32 * 1024 * 1024;
/** Slurm's MessageTimeout default, for a block without -t. */
const TIMEOUT_SEC_DEFAULT = 10;

class Refused extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}

export async function main(argv: string[]): Promise<number> {
  endQuietlyOnClosedPipe();
  const args = parseSbcastArgs(argv, process.env, process.cwd(), SLURM_VERSION_LINE);
  if (args.kind === "exit") {
    process.stdout.write(args.stdout);
    process.stderr.write(args.stderr);
    return args.exitCode;
  }
  process.stderr.write(args.warnings.join(""));
  const p = args.params;
  try {
    const source = openSource(p.source);
    const targets = await jobNodes(p);
    if (p.verbose > 0) process.stderr.write(`sbcast: jobid      = ${p.jobText}\nsbcast: node_list  = ${targets.map((t) => t.name).join(",")}\n`);
    const outcomes = await Promise.all(targets.map((t) => sendTo(t, p, source)));
    closeSync(source.fd);
    return Math.max(0, ...outcomes);
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    process.stderr.write(`sbcast: error: ${error.message}\n`);
    return error.exitCode;
  }
}

/** The source, open and read-only; Slurm's words when it cannot be sent. */
function openSource(path: string): { fd: number; stat: Stats } {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    throw new Refused(`Can't open \`${path}\`: ${strerrorOf(e)}`, 255);
  }
  const stat = fstatSync(fd);
  // Slurm maps the file into memory: a directory (or a device) cannot be
  if (!stat.isFile()) throw new Refused(`Can't mmap file \`${path}\`, No such device.`, 255);
  if (stat.size === 0) process.stderr.write(`sbcast: error: Warning: file \`${path}\` is empty.\n`);
  return { fd, stat };
}

export interface Target {
  name: string;
  url: string;
}

/** The nodes of the job (or step) with their agents' addresses, after Slurm's lookup checks. */
async function jobNodes(p: SbcastParams): Promise<Target[]> {
  const lookup = (why: string) => new Refused(`Slurm job ${p.jobText} lookup error: ${why}`, 255);
  // the port restores the fields the controller leaves out at their defaults (a PENDING state, uid 0)
  const port = controllerPort(resolveControllerUrls());
  let jobs: ListJobsAnswer;
  try {
    jobs = await port.listJobs({ jobIds: [p.jobId], includeFinished: true, includeSteps: p.stepId !== undefined, windowStart: 0, windowEnd: 0 });
  } catch (error) {
    if (error instanceof RpcError) throw lookup(error.message);
    throw error;
  }
  const job = (jobs.jobs ?? []).find((j) => j.jobId === p.jobId);
  if (job === undefined || p.jobId === 0) throw lookup("Invalid job id specified");
  const uid = process.getuid?.() ?? 0;
  if (uid !== 0 && job.uid !== uid) throw lookup("Invalid user id");
  if (job.state === "PENDING") throw lookup("Job is pending execution");
  if (job.state !== "RUNNING" || (job.stateFlags ?? []).includes("COMPLETING")) throw lookup("Job/step already completing or completed");
  let nodelist = job.nodelist;
  if (p.stepId !== undefined) {
    const step = (job.steps ?? []).find((s) => s.stepId === p.stepId && s.state === "RUNNING");
    if (step === undefined) throw lookup("Invalid job id specified");
    nodelist = step.nodelist;
  }
  const names = expandHostlist(nodelist);
  const nodes = await port.listNodes();
  return (names.ok ? names.value : []).map((name) => {
    const n = (nodes.nodes ?? []).find((x) => x.name === name);
    return { name, url: rpcUrl(n?.addr ?? "", n?.port ?? 0) };
  });
}

/** Send the file to one node, block by block; 0, or the errno the node's write failed with (said on stderr). */
export async function sendTo(t: Target, p: SbcastParams, source: { fd: number; stat: Stats }, prog = "sbcast"): Promise<number> {
  const client = createClient(Agent, createConnectTransport({ baseUrl: t.url, httpVersion: "1.1", interceptors: [credentialInterceptor(nodeAudience(t.name))], ...connectTls(t.url) }));
  const size = source.stat.size;
  const block = Math.min(p.blockBytes > 0 ? p.blockBytes : BLOCK_BYTES_DEFAULT, BLOCK_BYTES_MAX, Math.max(size, 1));
  const buffer = new Uint8Array(block);
  const timeoutMs = (p.timeoutSec > 0 ? p.timeoutSec : TIMEOUT_SEC_DEFAULT) * 1000;
  const fail = (error: string, errno: number) => {
    process.stderr.write(`${prog}: error: REQUEST_FILE_BCAST(${t.name}): ${error}\n`);
    return errno;
  };
  let offset = 0;
  do {
    const n = size === 0 ? 0 : readSync(source.fd, buffer, 0, Math.min(block, size - offset), offset);
    const last = offset + n >= size;
    try {
      const r = await client.fileBcast(
        {
          jobId: p.jobId, dest: p.dest, data: buffer.subarray(0, n), first: offset === 0, last, force: p.force, mode: source.stat.mode & 0o7777,
          preserve: p.preserve, atimeSec: Math.floor(source.stat.atimeMs / 1000), mtimeSec: Math.floor(source.stat.mtimeMs / 1000),
        },
        { timeoutMs },
      );
      if (r.errno !== 0) return fail(r.error, r.errno);
    } catch (error) {
      return fail((error as Error).message.replace(/^\[\w+\] /, ""), 1);
    }
    offset += n;
  } while (offset < size);
  return 0;
}
