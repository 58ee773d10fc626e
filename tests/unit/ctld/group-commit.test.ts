/**
 * A single controller writes the commands that arrive together in one durable append (one
 * transaction, one fsync: ctld/controller.ts execute → LogStore.appendMany), then applies
 * them in log order and answers each caller after its own entry is stored and applied.
 * A batch the disk refuses stores and applies nothing, and every caller hears ENOSPC.
 */
import { createConsola } from "consola";
import { describe, expect, it } from "vitest";
import { createController } from "../../../src/ctld/controller.ts";
import type { AgentLink } from "../../../src/ctld/agent-link.ts";
import type { LogStore } from "../../../src/ctld/log-store.ts";
import { NO_SPACE_MESSAGE, StoreFullError } from "../../../src/lib/store-full.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import { cluster, spec, submit } from "../sched/builders.ts";

/** A log whose first `base` entries are the ones the state was built from (cluster() registers nodes). */
function memoryLog(base: number, full = () => false): LogStore & { batches: number[] } {
  const rows: Command[] = Array.from({ length: base }, () => ({}) as Command);
  const batches: number[] = [];
  return {
    batches,
    append(command) {
      return this.appendMany([command]);
    },
    appendMany(commands) {
      if (full()) throw new StoreFullError(new Error("database or disk is full"));
      batches.push(commands.length);
      rows.push(...commands);
      return rows.length - commands.length + 1;
    },
    *entries() {
      for (let i = 0; i < rows.length; i++) yield { index: i + 1, command: rows[i] as Command };
    },
    lastIndex: () => rows.length,
    close: () => undefined,
  };
}

function setup(full?: () => boolean) {
  const { state } = cluster();
  const base = state.appliedIndex;
  const log = memoryLog(base, full);
  const c = createController({ state, log, logger: createConsola({ level: -999 }), now: () => 100, agents: {} as AgentLink });
  return { c, log, base };
}

describe("group commit on a single controller", () => {
  it("submissions that arrive together share one append, applied in order", async () => {
    const { c, log, base } = setup();
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => c.execute(submit(spec({ name: `j${i}`, hold: true })))));
    expect(log.batches).toEqual([5]);
    expect(results.map((r) => r.ids[0])).toEqual([1, 2, 3, 4, 5]);
    expect(c.state.appliedIndex).toBe(base + 5);
    expect([...c.state.jobs.values()].map((j) => j.info.name)).toEqual(["j0", "j1", "j2", "j3", "j4"]);
  });

  it("a caller is answered only after its entry is stored and applied", async () => {
    const { c, log, base } = setup();
    const answer = c.execute(submit(spec({ hold: true })));
    expect(log.lastIndex()).toBe(base);
    expect(c.state.jobs.size).toBe(0);
    const r = await answer;
    expect(log.lastIndex()).toBe(base + 1);
    expect(c.state.jobs.get(r.ids[0] as number)).toBeDefined();
  });

  it("a batch the disk refuses applies nothing and every caller hears ENOSPC", async () => {
    let full = true;
    const { c } = setup(() => full);
    const outcomes = await Promise.allSettled([1, 2, 3].map(() => c.execute(submit(spec({ hold: true })))));
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);
    for (const o of outcomes) expect(((o as PromiseRejectedResult).reason as Error).message).toContain(NO_SPACE_MESSAGE);
    expect(c.state.jobs.size).toBe(0);
    full = false;
    expect((await c.execute(submit(spec({ hold: true })))).ids).toEqual([1]);
  });
});
