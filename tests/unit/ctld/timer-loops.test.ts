/**
 * @module tests/unit/ctld/timer-loops
 * The controller's timer-driven loops on simulated time (a fake clock for its timers, the
 * state's `now` read from the same clock): a submitted job is started by the debounced pass,
 * the due loop commits timeLimitReached within a second of the limit and not before, and a
 * node silent for longer than SlurmdTimeout is failed while the ones heard from are not.
 */
import { describe, expect, it } from "vitest";
import { DUE_PERIOD_MS } from "../../../src/ctld/due-loop.ts";
import { spec, submit } from "../sched/builders.ts";
import { fakeController } from "./fake-controller.ts";

const setup = fakeController;

describe("controller timer loops (simulated time)", () => {
  it("starts a job on the debounced pass and ends it within a second of its time limit, not before", async () => {
    const s = setup();
    const stop = s.c.start();
    try {
      const submitted = s.c.execute(submit(spec({ timeLimitMin: 1 }), s.now()));
      await s.runFor(100);
      const jobId = (await submitted).ids[0] as number;
      const job = s.c.state.jobs.get(jobId);
      expect(job?.info.state).toBe("RUNNING");
      expect(s.launched).toEqual([jobId]);
      const startedMs = (job?.info.startTime ?? 0) * 1000;
      // Keep every node heard from, so only the limit can end the job.
      const beat = s.clock.setInterval(() => {
        for (const n of s.c.state.nodes.keys()) s.c.heartbeat(n);
      }, 10_000);
      await s.runFor(60_000 - (s.clock.now() - startedMs) - 1);
      expect(s.ofType("timeLimitReached")).toEqual([]);
      await s.runFor(DUE_PERIOD_MS + 1);
      const limit = s.ofType("timeLimitReached");
      expect(limit).toHaveLength(1);
      expect(limit[0]?.atMs).toBeGreaterThanOrEqual(startedMs + 60_000);
      expect(limit[0]?.atMs).toBeLessThanOrEqual(startedMs + 60_000 + DUE_PERIOD_MS);
      // Applied: the job is being ended, and its node was told to signal it.
      expect(s.c.state.jobs.get(jobId)?.endRequested).toBe("TIMEOUT");
      expect(s.signalled).toEqual([{ node: job?.info.alloc[0]?.node, jobId, reason: "TIMEOUT" }]);
      s.clock.clear(beat);
    } finally {
      stop();
    }
  });

  it("fails a node silent for longer than SlurmdTimeout, and only that one", async () => {
    const s = setup();
    const timeoutMs = s.c.state.config.slurmdTimeoutSec * 1000;
    const startMs = s.clock.now();
    const stop = s.c.start(); // leadership begins: every node gets a full timeout from now
    try {
      const silent = "n3";
      const beat = s.clock.setInterval(() => {
        for (const n of s.c.state.nodes.keys()) if (n !== silent) s.c.heartbeat(n);
      }, 10_000);
      await s.runFor(timeoutMs - 1);
      expect(s.ofType("nodeFail")).toEqual([]);
      await s.runFor(2 * DUE_PERIOD_MS);
      const failed = s.ofType("nodeFail");
      expect(failed.map((e) => (e.command as { node: string }).node)).toEqual([silent]);
      expect(failed[0]?.atMs).toBeGreaterThan(startMs + timeoutMs);
      expect(failed[0]?.atMs).toBeLessThanOrEqual(startMs + timeoutMs + DUE_PERIOD_MS);
      s.clock.clear(beat);
    } finally {
      stop();
    }
    // Stopped: no loop is left armed on the clock.
    expect(s.clock.pending()).toBe(0);
  });
});
