/**
 * The step log sattach reads (agent/step-attach): an attached client gets the
 * kept frames, then new ones, until the step's queue closes; the log keeps only
 * the most recent output; a step with nothing running here has no log.
 */
import { describe, expect, it } from "vitest";
import { attachStep, RecordingQueue, REPLAY_BYTES_MAX, stepInput } from "../../../src/agent/step-attach.ts";
import type { TaskStdin } from "../../../src/agent/stdin-pipe.ts";

const frame = (text: string) => ({ stdout: new TextEncoder().encode(text), stderr: new Uint8Array(0) });
const text = (f: { stdout: Uint8Array }) => new TextDecoder().decode(f.stdout);

const framesOf = (session: ReturnType<typeof attachStep> | undefined): AsyncIterable<{ stdout: Uint8Array }> => {
  expect(session).toBeDefined();
  return session?.frames ?? { async *[Symbol.asyncIterator]() {} };
};

/** A task's stdin that records what it got. */
function recorder(): TaskStdin & { got: string[] } {
  const got: string[] = [];
  let done = false;
  return {
    got,
    get done() {
      return done;
    },
    write: async (data) => void got.push(new TextDecoder().decode(data)),
    end: () => {
      done = true;
      got.push("<eof>");
    },
  };
}

async function drain(it: AsyncIterable<{ stdout: Uint8Array }>): Promise<string[]> {
  const out: string[] = [];
  for await (const f of it) out.push(text(f));
  return out;
}

describe("step attach", () => {
  it("replays what was kept, follows new frames, ends with the step", async () => {
    const q = new RecordingQueue<ReturnType<typeof frame>>("41.0");
    q.push(frame("a"));
    const client = attachStep(41, 0, new AbortController().signal);
    expect(client).toBeDefined();
    q.push(frame("b"));
    q.close();
    expect(await drain(framesOf(client))).toEqual(["a", "b"]);
    expect(attachStep(41, 0, new AbortController().signal)).toBeUndefined();
  });

  it("keeps only the most recent output", async () => {
    const q = new RecordingQueue<ReturnType<typeof frame>>("42.0");
    const big = "x".repeat(REPLAY_BYTES_MAX / 2 + 1);
    q.push(frame(`1${big}`));
    q.push(frame(`2${big}`));
    q.push(frame("3"));
    const client = attachStep(42, 0, new AbortController().signal);
    q.close();
    expect((await drain(framesOf(client))).map((t) => t[0])).toEqual(["2", "3"]);
  });

  it("an aborted client stops; the step goes on", async () => {
    const q = new RecordingQueue<ReturnType<typeof frame>>("43.0");
    const abort = new AbortController();
    const client = attachStep(43, 0, abort.signal);
    abort.abort();
    q.push(frame("after"));
    expect(await drain(framesOf(client))).toEqual([]);
    q.close();
  });

  it("sattach's input reaches the tasks that read stdin, with the session's token only", async () => {
    const q = new RecordingQueue<ReturnType<typeof frame>>("44.0");
    const [t0, t1] = [recorder(), recorder()];
    q.addInput(0, t0);
    q.addInput(1, t1);
    const session = attachStep(44, 0, new AbortController().signal);
    const token = session?.token ?? "";
    expect(await stepInput(44, 0, "forged", -1, new TextEncoder().encode("x"), false)).toBe(false);
    expect(await stepInput(44, 0, token, -1, new TextEncoder().encode("all"), false)).toBe(true);
    expect(await stepInput(44, 0, token, 1, new TextEncoder().encode("one"), true)).toBe(true);
    expect([t0.got, t1.got]).toEqual([["all"], ["all", "one", "<eof>"]]);
    q.close();
    expect(await stepInput(44, 0, token, -1, new TextEncoder().encode("late"), false)).toBe(false);
  });
});
