/**
 * @module roles/cli/srun-stdin
 * srun's own stdin, fanned out to the nodes whose tasks read it (`-i all`, the
 * default, or `-i <task id>`). Each such node's agent subscribes through srun's
 * message port (Launcher.TaskInput) and writes what it gets into its tasks'
 * stdin pipes, so nothing on the node opens a file for it.
 *
 * As Slurm's srun, stdin is read only once every expected node has subscribed
 * (a node that subscribes late would miss the start), and a node whose tasks
 * can no longer read (its stream ended) is dropped from that wait.
 * Failure policy: reading pauses while any subscriber holds more than
 * `queueBytesMax` unsent bytes (a task that does not read holds back the
 * others, as a full pipe would); at end of input every subscriber gets `eof`.
 */
import type { Readable } from "node:stream";

export interface InputChunk {
  data: Uint8Array;
  eof: boolean;
  /** srun --pty: the terminal's new size (0 = unchanged). */
  winRows?: number;
  winCols?: number;
}

export interface StdinFeed {
  /** The chunks for `node`'s agent, from when all expected nodes are in until end of input or `signal`. */
  subscribe(node: string, signal: AbortSignal): AsyncIterable<InputChunk>;
  /** `node` will not subscribe (or is gone): reading need not wait for it. */
  drop(node: string): void;
  /** srun --pty: srun's terminal is now `rows` x `cols`; every subscriber gets it, in order with the input. */
  resize(rows: number, cols: number): void;
  /** Stop reading (the step is over). */
  close(): void;
}

/** Unsent bytes one subscriber may hold before srun stops reading its stdin. */
export const QUEUE_BYTES_MAX = 1024 * 1024;

interface Subscriber {
  chunks: InputChunk[];
  bytes: number;
  wake: (() => void) | undefined;
}

const EMPTY = new Uint8Array(0);

/**
 * A feed of `source` for the nodes in `expected` (their names as RunTasks' tasks know them). `endsInput`
 * false (srun --pty): the end of `source` is not passed on (a terminal's input has no end: the task's
 * terminal stays open), and window changes go on being sent after it.
 */
export function createStdinFeed(source: Readable, expected: ReadonlySet<string>, queueBytesMax = QUEUE_BYTES_MAX, endsInput = true): StdinFeed {
  const waitingFor = new Set(expected);
  const subscribers = new Map<string, Subscriber>();
  let reading = false;
  let ended = false;
  // the latest window change: a node that subscribes after it still gets it (its task started with the older size)
  let size: InputChunk | undefined;
  let closed = false;
  const deliver = (chunk: InputChunk): void => {
    for (const s of subscribers.values()) {
      s.chunks.push(chunk);
      s.bytes += chunk.data.length;
      s.wake?.();
    }
  };
  const anyFull = (): boolean => [...subscribers.values()].some((s) => s.bytes > queueBytesMax);
  const onData = (b: Buffer | string): void => {
    deliver({ data: typeof b === "string" ? new TextEncoder().encode(b) : new Uint8Array(b), eof: false });
    if (anyFull()) source.pause();
  };
  const onEnd = (): void => {
    ended = true;
    if (endsInput) deliver({ data: EMPTY, eof: true });
  };
  const startIfReady = (): void => {
    if (reading || closed || waitingFor.size > 0 || subscribers.size === 0) return;
    reading = true;
    source.on("data", onData);
    source.once("end", onEnd);
    source.once("error", onEnd); // an unreadable stdin reads as its end
    source.resume();
  };
  return {
    subscribe(node, signal) {
      const first = ended && endsInput ? [{ data: EMPTY, eof: true }] : size === undefined ? [] : [size];
      const sub: Subscriber = { chunks: first, bytes: 0, wake: undefined };
      subscribers.set(node, sub);
      waitingFor.delete(node);
      startIfReady();
      return {
        async *[Symbol.asyncIterator]() {
          try {
            while (!signal.aborted && !closed) {
              const next = sub.chunks.shift();
              if (next === undefined) {
                await new Promise<void>((resolve) => {
                  sub.wake = resolve;
                  signal.addEventListener("abort", () => resolve(), { once: true });
                });
                sub.wake = undefined;
                continue;
              }
              sub.bytes -= next.data.length;
              if (reading && !ended && !anyFull()) source.resume();
              yield next;
              if (next.eof) return;
            }
          } finally {
            if (subscribers.get(node) === sub) subscribers.delete(node);
            if (reading && !ended && !closed && !anyFull()) source.resume();
          }
        },
      };
    },
    drop(node) {
      waitingFor.delete(node);
      startIfReady();
    },
    resize(rows, cols) {
      if ((ended && endsInput) || closed) return;
      size = { data: EMPTY, eof: false, winRows: rows, winCols: cols };
      deliver(size);
    },
    close() {
      closed = true;
      if (reading) {
        source.off("data", onData);
        source.pause();
      }
      for (const s of subscribers.values()) s.wake?.();
    },
  };
}
