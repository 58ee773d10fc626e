/**
 * @module agent/step-attach
 * What sattach reads on a node: every frame a running step's tasks produce here
 * goes to srun (the RunTasks stream) and into this step's log, which keeps the
 * most recent `REPLAY_BYTES_MAX` bytes of output, as slurmstepd keeps a buffer
 * of the tasks' output for clients that attach later. An attached client gets
 * the kept frames, then the new ones, until the step ends here.
 * sattach's stdin reaches the tasks that read stdin here through `stepInput`,
 * with the random token its attach session got (only an attached owner or root
 * may write into the tasks).
 * Failure policy: the log is bounded (oldest frames dropped first); a client
 * that reads slowly gets its frames queued up to `CLIENT_BYTES_MAX`, then it is
 * cut off (its stream ends) rather than holding the agent's memory.
 */
import { randomBytes } from "node:crypto";
import { AsyncQueue } from "../lib/async-queue.ts";
import type { TaskStdin } from "./stdin-pipe.ts";

/** What is logged: a task frame (agent/tasks.ts), of which only the output's size matters here. */
interface Frame {
  stdout: Uint8Array;
  stderr: Uint8Array;
}

/** Output kept per step on a node for clients that attach later. */
export const REPLAY_BYTES_MAX = 1024 * 1024;
/** Output queued for one attached client before it is cut off. */
const CLIENT_BYTES_MAX = 8 * 1024 * 1024;

interface StepLog {
  frames: Frame[];
  bytes: number;
  clients: Set<Client>;
  /** The stdin of each task here that reads stdin, by task id. */
  inputs: Map<number, TaskStdin>;
  /** Tokens of the attach sessions that may write into `inputs`. */
  tokens: Set<string>;
}

interface Client {
  queue: AsyncQueue<Frame>;
  bytes: number;
}

const sizeOf = (f: Frame): number => f.stdout.length + f.stderr.length;

/** Running steps' logs on this node, by "job.step". */
const logs = new Map<string, StepLog>();

/** A queue for runTasks that also logs every frame for `key` ("job.step") until it is closed. */
export class RecordingQueue<T extends Frame> extends AsyncQueue<T> {
  private readonly log: StepLog = { frames: [], bytes: 0, clients: new Set(), inputs: new Map(), tokens: new Set() };

  constructor(private readonly key: string) {
    super();
    logs.set(key, this.log);
  }

  override push(item: T): void {
    super.push(item);
    const log = this.log;
    log.frames.push(item);
    log.bytes += sizeOf(item);
    while (log.bytes > REPLAY_BYTES_MAX && log.frames.length > 1) log.bytes -= sizeOf(log.frames.shift() as Frame);
    for (const c of log.clients) {
      c.bytes += sizeOf(item);
      if (c.bytes > CLIENT_BYTES_MAX) {
        c.queue.close();
        log.clients.delete(c);
      } else c.queue.push(item);
    }
  }

  override close(): void {
    super.close();
    if (logs.get(this.key) === this.log) logs.delete(this.key);
    for (const c of this.log.clients) c.queue.close();
    this.log.clients.clear();
    this.log.inputs.clear();
    this.log.tokens.clear();
  }

  /** Task `taskId` reads stdin through `stdin`: sattach may write into it too. */
  addInput(taskId: number, stdin: TaskStdin): void {
    this.log.inputs.set(taskId, stdin);
  }
}

/** The step's kept frames and then its new ones until it ends here; undefined when it has no tasks running here. */
export function attachStep<T extends Frame>(jobId: number, stepId: number, signal: AbortSignal): { token: string; frames: AsyncIterable<T> } | undefined {
  const log = logs.get(`${jobId}.${stepId}`);
  if (log === undefined) return undefined;
  const token = randomBytes(16).toString("hex");
  log.tokens.add(token);
  const client: Client = { queue: new AsyncQueue<Frame>(), bytes: 0 };
  for (const f of log.frames) {
    client.queue.push(f);
    client.bytes += sizeOf(f);
  }
  log.clients.add(client);
  signal.addEventListener("abort", () => {
    log.clients.delete(client);
    log.tokens.delete(token);
    client.queue.close();
  }, { once: true });
  const frames = {
    async *[Symbol.asyncIterator]() {
      for await (const f of client.queue) {
        client.bytes -= sizeOf(f);
        yield f as T; // every frame logged for this step came from runTasks' queue of T
      }
    },
  };
  return { token, frames };
}

/**
 * sattach's input for the step's tasks here that read stdin (`taskId` >= 0: that task only); `eof` closes their
 * stdin. False when the step has no tasks here or `token` is no attach session of it.
 */
export async function stepInput(jobId: number, stepId: number, token: string, taskId: number, data: Uint8Array, eof: boolean): Promise<boolean> {
  const log = logs.get(`${jobId}.${stepId}`);
  if (log === undefined || !log.tokens.has(token)) return false;
  const targets = [...log.inputs.entries()].filter(([id, w]) => (taskId < 0 || id === taskId) && !w.done).map(([, w]) => w);
  if (data.length > 0) await Promise.all(targets.map((w) => w.write(data)));
  if (eof) targets.forEach((w) => w.end());
  return true;
}
