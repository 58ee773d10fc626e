/**
 * @module agent/pmix-serve
 * `srun --mpi=pmix` on one node: before the step's tasks start, spurd starts the step's PMIx
 * server here (`spur pmix-server`, agent/pmix/server.ts) as the job's user, in the step's cgroup,
 * and gets each local task's PMIx environment from it. Afterwards it carries the server's fences
 * across the nodes through srun's listener (Launcher.PmiFence, the path PMI-2 fences take: every
 * node puts its data under its own name, srun answers with all of them) and turns a task's
 * PMIx_Abort into the step's end, as pmi-serve.ts does for PMI-2.
 *
 * Failure policy: a server that cannot start (no libpmix on the node, a refused registration)
 * answers `error` instead of environments and the tasks do not run; a fence srun does not answer
 * fails in every local task (PMIX_ERROR) instead of leaving them blocked; the server ends with
 * the step (its stdin is closed, and the step's cgroup is emptied as for any task).
 */
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import type { ChildProcess } from "node:child_process";
import { Launcher, type RunTasksRequest } from "../net/gen/spur/v1/agent_pb.ts";
import { expandHostlist } from "../compat/hostlist.ts";
import { pmixNamespace, ranksFromMapping } from "../compat/pmix/job-info.ts";
import { splitLines, type FenceAnswer, type ServerLine, type ServerStart } from "./pmix/protocol.ts";
import { spawnAsUser, type Prefix } from "./run-as.ts";
import { ROOT_PATH } from "./user-launch.ts";

export type PmixReady = { envs: Record<string, Record<string, string>> } | { error: string };

export interface PmixServe {
  /** Each local task's PMIx environment by global rank, or why the step cannot be served. */
  ready: Promise<PmixReady>;
  /** End the server (it finalizes libpmix and removes its directory); resolves once it is gone or after CLOSE_WAIT_MS. */
  close(): Promise<void>;
}

/** How long the step's end waits for its PMIx server to clean up before the cgroup is emptied. */
const CLOSE_WAIT_MS = 2000;

export interface PmixHooks {
  /** The command line that runs this program again (roles/self-exec.ts). */
  selfExec: readonly string[];
  /** Root's part of the launch (cgroup join), as for the tasks. */
  prefix: Prefix;
  onAbort(rank: number, exitCode: number, message: string): void;
  /** What the server writes on stderr (libpmix's own errors): shown with the step's output. */
  onStderr(text: string): void;
}

/** The step as this node's server must know it, or why it cannot be built from the request. */
export function pmixStart(req: RunTasksRequest, node: string): ServerStart | string {
  const names = expandHostlist(req.tasks[0]?.env.SLURM_STEP_NODELIST ?? "");
  if (!names.ok) return "the step's node list cannot be read";
  const nodes = names.value;
  const ranksOfNode = ranksFromMapping(req.pmiProcessMapping, nodes.length);
  if (typeof ranksOfNode === "string") return ranksOfNode;
  return { step: { nspace: pmixNamespace(req.jobId, req.stepId), nodes, ranksOfNode, nodeIndex: nodes.indexOf(node) }, uid: req.uid, gid: req.gid };
}

/** The PMIx server of the step of `req` on `node`, or undefined when the step does not use PMIx. */
export function servePmix(req: RunTasksRequest, node: string, hooks: PmixHooks): PmixServe | undefined {
  if (req.mpiType !== "pmix" || req.tasks.length === 0) return undefined;
  const start = pmixStart(req, node);
  if (typeof start === "string") return { ready: Promise.resolve({ error: start }), close: () => Promise.resolve() };
  const l = { uid: req.uid, gid: req.gid, workDir: "/", node, umask: "", env: serverEnv(process.env) };
  const child = spawnAsUser(l, [...hooks.selfExec, "pmix-server"], ["pipe", "pipe", "pipe"], hooks.prefix).child;
  const client = req.launcher === "" ? undefined : createClient(Launcher, createConnectTransport({ baseUrl: `http://${req.launcher}`, httpVersion: "1.1" }));
  const answer = (a: FenceAnswer): void => {
    if (child.stdin?.writable) child.stdin.write(`${JSON.stringify(a)}\n`);
  };
  let round = 0;
  const fence = (id: number, data: string): void => {
    const r = round++;
    if (req.pmiNodes <= 1) return answer({ fence: id, ok: true, blobs: [data] });
    if (client === undefined) return answer({ fence: id, ok: false, blobs: [] });
    client.pmiFence({ jobId: req.jobId, stepId: req.stepId, node, token: req.launcherToken, round: r, puts: { [node]: data } }).then(
      (res) => answer(res.error === "" ? { fence: id, ok: true, blobs: Object.keys(res.kvs).sort().map((k) => res.kvs[k] ?? "") } : { fence: id, ok: false, blobs: [] }),
      () => answer({ fence: id, ok: false, blobs: [] }),
    );
  };
  let settle: (r: PmixReady) => void = () => undefined;
  const ready = new Promise<PmixReady>((resolve) => {
    settle = resolve;
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (t: string) => {
    stderr += t;
    hooks.onStderr(t);
  });
  child.stdin?.on("error", () => undefined); // the server is gone: its exit says so
  child.stdin?.write(`${JSON.stringify(start)}\n`);
  readLines(child, (line) => {
    if ("ready" in line) settle({ envs: line.ready });
    else if ("failed" in line) settle({ error: line.failed });
    else if ("fence" in line) fence(line.fence, line.data);
    else if ("abort" in line) {
      hooks.onAbort(line.abort, line.status, line.message);
      void client?.pmiFence({ jobId: req.jobId, stepId: req.stepId, node, token: req.launcherToken, abort: true, abortRank: line.abort, abortExitCode: line.status }).catch(() => undefined);
    }
  });
  child.once("error", (e) => settle({ error: `cannot start the PMIx server: ${e.message}` }));
  child.once("exit", (code) => settle({ error: `the PMIx server ended (status ${code ?? "?"}) before the tasks started${stderr === "" ? "" : `: ${stderr.trim()}`}` }));
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
  return {
    ready,
    close() {
      child.stdin?.end();
      // a server that does not finish its cleanup in time goes with the step's cgroup
      return Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
    },
  };
}

/** The server's whole environment: root's fixed PATH and spurd's own SPUR_PMIX_* settings (the library's path); nothing of the job's. */
function serverEnv(daemon: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const env: Record<string, string> = { PATH: ROOT_PATH };
  for (const [k, v] of Object.entries(daemon)) if ((k.startsWith("SPUR_PMIX_") || k.startsWith("PMIX_MCA_")) && v !== undefined) env[k] = v;
  return env;
}

function readLines(child: ChildProcess, onLine: (l: ServerLine) => void): void {
  let rest = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    let split: { lines: string[]; rest: string };
    try {
      split = splitLines(rest, chunk);
    } catch {
      child.kill("SIGKILL"); // a line past the limit: not our server speaking
      return;
    }
    rest = split.rest;
    for (const line of split.lines) {
      let parsed: ServerLine;
      try {
        parsed = JSON.parse(line) as ServerLine;
      } catch {
        continue; // not a protocol line: ignored (the server writes nothing else on stdout)
      }
      onLine(parsed);
    }
  });
}
