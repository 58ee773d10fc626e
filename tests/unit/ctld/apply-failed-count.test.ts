/**
 * Issue 14: a committed command apply() cannot apply is skipped (ApplyFailed) on every
 * replica; an operator must see that it happened. The controller counts each one (also
 * those skipped by the start-up replay or by the Raft driver), sdiag shows the count since
 * its last reset, and /metrics exposes spur_apply_failed_total, which no reset clears.
 */
import { createConsola } from "consola";
import { describe, expect, it } from "vitest";
import { createController } from "../../../src/ctld/controller.ts";
import type { AgentLink } from "../../../src/ctld/agent-link.ts";
import { controllerMetrics, createSchedulerStats } from "../../../src/ctld/metrics.ts";
import { diagView } from "../../../src/ctld/service-sched.ts";
import { newSchedCounters } from "../../../src/ctld/sched-stats.ts";
import { renderMetrics } from "../../../src/net/metrics-text.ts";
import { APPLY_FAILED } from "../../../src/sched/model/apply.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import { ROOT, cluster, spec, submit } from "../sched/builders.ts";
import { parseExposition } from "../metrics/parse-exposition.ts";

function replicaController() {
  const { state } = cluster();
  const logger = createConsola({ level: -999 });
  // A replica that is not serving: the driver hands it committed commands, it never acts on them.
  const controller = createController({
    state, logger, now: () => 100, agents: {} as AgentLink,
    replication: { propose: () => Promise.reject(new Error("unused")), isServing: () => false },
  });
  return controller;
}

describe("ApplyFailed is counted and shown", () => {
  it("counts committed commands apply() refuses, not those it applies or rejects normally", () => {
    const c = replicaController();
    expect(c.applyCommitted(submit(spec()), 1).errorCode).toBe("");
    expect(c.applyCommitted({ v: 1, type: "cancel", at: 1, signal: 0, batchOnly: false, by: ROOT, filter: { jobIds: ["999"], user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" } }, 2).errorCode).not.toBe(APPLY_FAILED);
    expect(c.applyCommitted({ v: 1, type: "submit", at: 3, spec: null, by: ROOT, priority: 0 } as unknown as Command, 3).errorCode).toBe(APPLY_FAILED);
    expect(c.applyCommitted({ v: 2, type: "fromTheFuture", at: 4 } as unknown as Command, 4).errorCode).toBe(APPLY_FAILED);
    expect(c.applyFailedTotal()).toBe(2);
    expect(diagView(c, 100).applyFailed).toBe(2);
  });

  it("adds entries skipped outside apply (replay, driver); sdiag --reset clears sdiag's count, not the metric", () => {
    const c = replicaController();
    c.applyCommitted({ v: 9, type: "x", at: 1 } as unknown as Command, 1);
    c.noteSkippedEntries(3);
    expect(diagView(c, 100).applyFailed).toBe(4);
    Object.assign(c.schedCounters(), newSchedCounters(100));
    expect(diagView(c, 100).applyFailed).toBe(0);
    expect(c.applyFailedTotal()).toBe(4);
    const text = renderMetrics(controllerMetrics({ state: c.state, sched: createSchedulerStats(), rpc: [], applyFailed: c.applyFailedTotal(), version: "9", protocol: "1", startedAt: 0 }));
    const family = parseExposition(text).get("spur_apply_failed_total");
    expect(family?.type).toBe("counter");
    expect(family?.samples[0]?.value).toBe(4);
  });
});
