/**
 * @module agent/task-input
 * srun's stdin for the tasks of a step that read it (TaskSpec.stdin_forwarded):
 * the agent pulls it from srun's listener (Launcher.TaskInput, with the step's
 * token) and writes every chunk into each such task's stdin pipe, as slurmstepd
 * feeds tasks the stdin srun sends; for an `srun --pty` task the chunks go into
 * its terminal, and a chunk with a window size resizes it. Root only writes into pipes the tasks were
 * started with; nothing the job names is opened here (docs/security.md).
 *
 * Failure policy: a task that has exited (or closed its stdin) is skipped; a
 * pipe that is full is waited on (the stream from srun is read no further,
 * which pauses srun); if srun cannot be reached or the stream breaks, the
 * tasks' stdin is closed (they read end of input) rather than left open.
 */
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { Launcher, type RunTasksRequest } from "../net/gen/spur/v1/agent_pb.ts";
import type { TaskStdin } from "./stdin-pipe.ts";

/** How often the feed looks whether every task is gone (their pipes ended), to stop pulling from srun. */
const GONE_CHECK_MS = 1000;

/**
 * Feed `stdins` (the forwarded tasks' stdin pipes on `node`) from srun's listener named in `req`.
 * Returns at end of input, when every task is gone, or on `abort`; never rejects.
 */
export async function feedTaskInput(req: RunTasksRequest, node: string, stdins: readonly TaskStdin[], abort: AbortSignal): Promise<void> {
  const endAll = () => stdins.forEach((w) => w.end());
  if (req.launcher === "" || stdins.length === 0) return endAll();
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  abort.addEventListener("abort", onAbort, { once: true });
  // every task gone: srun need not keep sending
  const watch = setInterval(() => stdins.every((w) => w.done) && stop.abort(), GONE_CHECK_MS);
  watch.unref?.();
  try {
    const client = createClient(Launcher, createConnectTransport({ baseUrl: `http://${req.launcher}`, httpVersion: "1.1" }));
    const stream = client.taskInput({ jobId: req.jobId, stepId: req.stepId, node, token: req.launcherToken }, { signal: stop.signal });
    for await (const chunk of stream) {
      if (chunk.winRows > 0 && chunk.winCols > 0) for (const w of stdins) w.resize?.({ rows: chunk.winRows, cols: chunk.winCols });
      if (chunk.data.length > 0) await Promise.all(stdins.filter((w) => !w.done).map((w) => w.write(chunk.data)));
      if (chunk.eof || stdins.every((w) => w.done)) break;
    }
  } catch {
    // srun gone or the step over: end of input for the tasks
  } finally {
    clearInterval(watch);
    abort.removeEventListener("abort", onAbort);
    endAll();
  }
}
