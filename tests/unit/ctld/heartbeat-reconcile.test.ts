/**
 * @module tests/unit/ctld/heartbeat-reconcile
 * A heartbeat reconciled with the controller's jobs (service-agent.ts, through the batch-host
 * index of batch-hosts.ts), on a fake clock: a job the batch host stops reporting is ended as
 * NODE_FAIL once its grace has passed and not before, one it still reports is left alone, an
 * unknown job it reports is to be killed, and a job that started after the index was made is
 * found on a later heartbeat, never wrongly.
 */
import { describe, expect, it } from "vitest";
import type { HandlerContext } from "@connectrpc/connect";
import { agentHandlers } from "../../../src/ctld/service-agent.ts";
import type { ServiceContext } from "../../../src/ctld/service-context.ts";
import { MAX_AGE_SEC } from "../../../src/ctld/batch-hosts.ts";
import { PEER_UID_HEADER } from "../../../src/net/rpc-server.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import { spec, submit } from "../sched/builders.ts";
import { fakeController } from "./fake-controller.ts";

function setup() {
  const { c, clock, now, runFor, ofType } = fakeController();
  const sc = { controller: c, now, selfUid: 0 } as unknown as ServiceContext;
  const agent = agentHandlers(sc);
  const ctx = { requestHeader: new Headers({ [PEER_UID_HEADER]: "0" }), method: { name: "Heartbeat" } } as unknown as HandlerContext;
  const beat = async (node: string, runningJobIds: number[]) => {
    const r = agent.heartbeat({ node, runningJobIds, cpuLoad: 0, freeMemoryMib: 0 }, ctx);
    await runFor(50); // a lost job's jobEnded is sent without waiting: let it commit
    return r.killJobIds;
  };
  const failed = () => ofType("jobEnded").flatMap(({ command: x }) => (x.type === "jobEnded" && x.outcome === "NODE_FAIL" ? [x.jobId] : []));
  // commands commit on the fake clock's timers (group commit)
  const exec = async (command: Command) => {
    const answer = c.execute(command);
    await runFor(50);
    return answer;
  };
  const start = async (nodelist: string) => {
    const r = await exec(submit(spec({ nodelist }), now()));
    const id = r.ids[0] as number;
    await exec({ v: 1, type: "startJobs", at: now(), decisions: [{ jobId: id, arrayTaskId: 0, alloc: [{ node: nodelist, cpus: 1, memMib: 100, gpuIndices: [], tasks: 1 }] }] });
    expect(c.state.jobs.get(id)?.info.state).toBe("RUNNING");
    return id;
  };
  return { c, clock, beat, failed, start };
}

describe("heartbeat reconcile", () => {
  it("fails a batch job its host stops reporting after the grace, keeps a reported one, kills an unknown one", async () => {
    const s = setup();
    const lost = await s.start("n1");
    const kept = await s.start("n1");
    const elsewhere = await s.start("n2");
    s.clock.advance(5_000);
    expect(await s.beat("n1", [kept])).toEqual([]);
    expect(s.failed()).toEqual([]); // within the grace
    s.clock.advance(20_000);
    expect(await s.beat("n1", [kept, 999_999])).toEqual([999_999]);
    expect(s.failed()).toEqual([lost]);
    expect(s.c.state.jobs.get(elsewhere)?.info.state).toBe("RUNNING"); // another host's job is its own host's business
  });

  it("finds a job that started after the index was made on a later heartbeat, never early", async () => {
    const s = setup();
    s.clock.advance(30_000);
    expect(await s.beat("n1", [])).toEqual([]); // the index is made now, without the job below
    const late = await s.start("n1");
    expect(await s.beat("n1", [])).toEqual([]);
    s.clock.advance(MAX_AGE_SEC * 500);
    expect(await s.beat("n1", [])).toEqual([]);
    expect(s.failed()).toEqual([]);
    s.clock.advance(20_000);
    await s.beat("n1", []);
    expect(s.failed()).toEqual([late]);
  });
});
