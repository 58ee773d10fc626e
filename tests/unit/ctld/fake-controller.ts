/**
 * @module tests/unit/ctld/fake-controller
 * A controller over the builders' cluster, on simulated time: a fake clock drives its timers and
 * the state's `now`, an in-memory log records every committed command with its time, and the
 * agents are recorders. Shared by the tests of the controller's timer loops and agent handlers.
 */
import { createConsola } from "consola";
import type { AgentLink } from "../../../src/ctld/agent-link.ts";
import { createController } from "../../../src/ctld/controller.ts";
import type { LogStore } from "../../../src/ctld/log-store.ts";
import { createFakeClock, type FakeClock } from "../../../src/lib/fake-clock.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import type { ClusterState } from "../../../src/sched/model/types.ts";
import { cluster } from "../sched/builders.ts";

export const drain = () => new Promise<void>((res) => setImmediate(res));

/**
 * Let `ms` of simulated time pass: fire each timer due on the way, one at a time with the
 * promises it settles run in between (as the event loop does), then move to the end.
 */
export async function runClockFor(clock: FakeClock, ms: number): Promise<void> {
  const endMs = clock.now() + ms;
  for (;;) {
    await drain();
    const due = clock.nextDueMs();
    if (due === undefined || due > endMs) break;
    clock.step();
  }
  clock.advance(endMs - clock.now());
  await drain();
}

export function fakeController() {
  const { state } = cluster();
  const rows: Command[] = Array.from({ length: state.appliedIndex }, () => ({}) as Command);
  const committed: { command: Command; atMs: number }[] = [];
  const clock = createFakeClock(1_000_000_000); // epoch 1e6 s: after every `at` the builders use
  const log: LogStore = {
    append(command) {
      return this.appendMany([command]);
    },
    appendMany(commands) {
      for (const command of commands) committed.push({ command, atMs: clock.now() });
      rows.push(...commands);
      return rows.length - commands.length + 1;
    },
    *entries() {
      for (let i = 0; i < rows.length; i++) yield { index: i + 1, command: rows[i] as Command };
    },
    lastIndex: () => rows.length,
    close: () => undefined,
  };
  const launched: number[] = [];
  const signalled: { node: string; jobId: number; reason: string }[] = [];
  const agents = {
    launchBatch: async (job) => void launched.push(job.info.jobId),
    signalJob: async (node, event) => void signalled.push({ node, jobId: event.jobId, reason: event.reason }),
  } as Pick<AgentLink, "launchBatch" | "signalJob"> as AgentLink;
  const now = () => clock.now() / 1000;
  const c = createController({ state, log, logger: createConsola({ level: -999 }), now, agents, clock });
  const runFor = (ms: number) => runClockFor(clock, ms);
  const ofType = (type: string) => committed.filter((e) => e.command.type === type);
  return { c, clock, now, runFor, launched, signalled, ofType };
}

/**
 * A controller over a given state that only answers reads (listings, views): no log, no agents,
 * no replication; its clock stands at `now`.
 */
export function readOnlyController(state: ClusterState, now: number) {
  return createController({
    state, logger: createConsola({ level: -999 }), now: () => now, agents: {} as AgentLink,
    replication: { propose: () => Promise.reject(new Error("unused")), isServing: () => false },
  });
}
