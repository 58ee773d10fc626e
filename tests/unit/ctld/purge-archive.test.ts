/**
 * Finished jobs leave the controller after MinJobAge and stay in accounting: a controller with a
 * real SQLite log and archive on simulated time commits purgeJobs once the job is MinJobAge old;
 * the job is then unknown to squeue/scontrol (their lookup by id finds nothing: the CLIs print
 * "slurm_load_jobs error: Invalid job id specified", exit 1, as Slurm does for a purged job)
 * while sacct's listing (includeFinished) still has it with its steps. A restart that replays the
 * log rebuilds the same state and writes the same archive rows again (idempotent). The archive
 * itself: window filters, array/het lookups, snapshot framing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConsola } from "consola";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentLink } from "../../../src/ctld/agent-link.ts";
import { createController } from "../../../src/ctld/controller.ts";
import { DUE_PERIOD_MS, PURGE_EVERY_TURNS } from "../../../src/ctld/due-loop.ts";
import { openJobArchive, splitArchive, withArchive } from "../../../src/ctld/job-archive.ts";
import { openLogStore } from "../../../src/ctld/log-store.ts";
import { replayLog } from "../../../src/ctld/replay.ts";
import { listJobViews } from "../../../src/ctld/views.ts";
import { createFakeClock } from "../../../src/lib/fake-clock.ts";
import { runClockFor } from "./fake-controller.ts";
import type { JobRecord } from "../../../src/sched/model/types.ts";
import { CONF, cluster, spec, submit } from "../sched/builders.ts";

/** Fresh directories for this file's databases, removed when its tests are done. */
const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});
function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

const MIN_AGE = 30;
const CONF_AGED = `${CONF}MinJobAge=${MIN_AGE}\n`;

const listReq = (over: { includeFinished?: boolean; jobIds?: number[]; includeSteps?: boolean; windowStart?: number; windowEnd?: number } = {}) => ({
  includeFinished: false, jobIds: [], includeSteps: false, windowStart: 0, windowEnd: 0, squeueView: "", knownListVersion: "", accounting: false, sacctQuery: "", ...over,
});

function setup(dir: string) {
  const { state } = cluster(CONF_AGED, false);
  const clock = createFakeClock(1_000_000_000);
  const log = openLogStore(join(dir, "state-log.sqlite"));
  const archive = openJobArchive(join(dir, "job-archive.sqlite"));
  const agents = { launchBatch: async () => undefined, signalJob: async () => undefined } as Pick<AgentLink, "launchBatch" | "signalJob"> as AgentLink;
  const now = () => clock.now() / 1000;
  const c = createController({ state, log, archive, logger: createConsola({ level: -999 }), now, agents, clock });
  const runFor = (ms: number) => runClockFor(clock, ms);
  /** Commit one command (group commit waits on the clock's timers). */
  const exec = async (command: Parameters<typeof c.execute>[0]) => {
    const answer = c.execute(command);
    await runFor(10);
    return answer;
  };
  return { c, clock, now, runFor, exec, log, archive };
}

describe("purged jobs: gone from the controller, kept in accounting", () => {
  it("purges after MinJobAge, sacct still lists the job with its steps, a replay rebuilds the same", async () => {
    const dir = scratchDir("purge-");
    const s = setup(dir);
    const stop = s.c.start();
    let jobId = 0;
    try {
      for (const node of [...s.c.state.nodes.values()]) await s.exec({ v: 1, type: "registerNode", at: s.now(), node: { ...node.info, addr: "127.0.0.1" }, runningJobIds: [] });
      jobId = (await s.exec(submit(spec({ name: "acct" }), s.now()))).ids[0] as number;
      await s.runFor(100);
      expect(s.c.state.jobs.get(jobId)?.info.state).toBe("RUNNING");
      const alloc = s.c.state.jobs.get(jobId)?.info.alloc ?? [];
      const step = await s.exec({ v: 1, type: "stepCreate", at: s.now(), jobId, name: "hostname", alloc, ntasks: 1 });
      await s.exec({ v: 1, type: "stepComplete", at: s.now(), jobId, stepId: step.ids[0] as number, exitCode: 0, exitSignal: 0, state: "COMPLETED" });
      await s.exec({ v: 1, type: "jobEnded", at: s.now(), jobId, exitCode: 0, exitSignal: 0, outcome: "COMPLETED" });
      const ended = s.now();
      const finished = structuredClone(s.c.state.jobs.get(jobId)?.info);
      expect(finished?.steps.length).toBeGreaterThan(0);
      // Before MinJobAge: still in the state (squeue shows it), not archived.
      await s.runFor((MIN_AGE - 2) * 1000);
      expect(s.c.state.jobs.has(jobId)).toBe(true);
      expect(s.archive.count()).toBe(0);
      // Past it (within a purge period): gone from the state, in the archive.
      await s.runFor((2 + 1) * 1000 + PURGE_EVERY_TURNS * DUE_PERIOD_MS);
      expect(s.c.state.jobs.has(jobId)).toBe(false);
      expect(s.c.state.nextJobId).toBe(jobId + 1);
      expect(s.archive.has(jobId)).toBe(true);
      // squeue -j / scontrol show job: nothing by that id (the CLIs answer Invalid job id specified).
      expect(listJobViews(s.c, listReq({ jobIds: [jobId] }), s.now())).toEqual([]);
      // sacct: the job as it ended, with its steps; the window filters apply to archived jobs too.
      const acct = listJobViews(s.c, listReq({ includeFinished: true, includeSteps: true, jobIds: [jobId] }), s.now());
      expect(acct).toEqual([finished]);
      expect(listJobViews(s.c, listReq({ includeFinished: true }), s.now()).map((j) => [j.jobId, j.steps.length])).toEqual([[jobId, 0]]);
      expect(listJobViews(s.c, listReq({ includeFinished: true, windowStart: ended + 1 }), s.now())).toEqual([]);
      expect(listJobViews(s.c, listReq({ includeFinished: true, windowStart: ended - 1 }), s.now()).map((j) => j.jobId)).toEqual([jobId]);
      // A new job gets the next id: ids never go back.
      const again = await s.exec(submit(spec({ name: "next", hold: true }), s.now()));
      expect(again.ids).toEqual([jobId + 1]);
    } finally {
      stop();
    }
    const liveKeys = [...s.c.state.jobs.keys()];
    const rows = s.archive.list({ jobIds: [], windowStart: 0, windowEnd: 0 });
    // Restart: replay the log into a fresh state; the archive (the same file, then an empty one) ends with the same rows.
    for (const archivePath of [join(dir, "job-archive.sqlite"), join(dir, "fresh-archive.sqlite")]) {
      const archive = archivePath.endsWith("job-archive.sqlite") ? s.archive : openJobArchive(archivePath);
      const { state } = cluster(CONF_AGED, false);
      const out = replayLog(state, s.log.entries(), () => undefined, archive);
      expect(out.failed).toEqual([]);
      expect([...state.jobs.keys()]).toEqual(liveKeys);
      expect(state.purgedUsage).toEqual(s.c.state.purgedUsage);
      expect(archive.list({ jobIds: [], windowStart: 0, windowEnd: 0 })).toEqual(rows);
      expect(archive.count()).toBe(1);
    }
    s.log.close();
  });
});

/** A record with only what the archive reads (its info). */
function rec(info: Partial<JobRecord["info"]>): JobRecord {
  return { info: { jobId: 1, arrayJobId: 0, arrayTaskId: 0, submitTime: 10, endTime: 20, state: "COMPLETED", steps: [], ...info }, spec: {} } as unknown as JobRecord;
}

describe("job archive", () => {
  it("upserts by id, finds arrays and het jobs by their id, filters windows in SQL, and frames snapshot rows", () => {
    const dir = scratchDir("archive-");
    const a = openJobArchive(join(dir, "a.sqlite"));
    a.put([rec({ jobId: 1 }), rec({ jobId: 2, arrayJobId: 2, arrayTaskId: 1 }), rec({ jobId: 3, arrayJobId: 2, arrayTaskId: 0 })]);
    a.put([rec({ jobId: 4, hetJobId: 4, submitTime: 100, endTime: 200 }), rec({ jobId: 5, hetJobId: 4, submitTime: 100, endTime: 200 })]);
    a.put([rec({ jobId: 1, name: "again" })]);
    expect(a.count()).toBe(5);
    expect(a.list({ jobIds: [1], windowStart: 0, windowEnd: 0 }).map((j) => j.name)).toEqual(["again"]);
    expect(a.list({ jobIds: [2], windowStart: 0, windowEnd: 0 }).map((j) => j.jobId)).toEqual([2, 3]);
    expect(a.list({ jobIds: [4], windowStart: 0, windowEnd: 0 }).map((j) => j.jobId)).toEqual([4, 5]);
    expect(a.list({ jobIds: [], windowStart: 150, windowEnd: 0 }).map((j) => j.jobId)).toEqual([4, 5]);
    expect(a.list({ jobIds: [], windowStart: 0, windowEnd: 50 }).map((j) => j.jobId)).toEqual([1, 2, 3]);
    const image = withArchive(a.exportRows(), new TextEncoder().encode("STATE"));
    const split = splitArchive(image);
    expect(new TextDecoder().decode(split.stateImage)).toBe("STATE");
    const b = openJobArchive(join(dir, "b.sqlite"));
    expect(b.importRows(split.rows ?? new Uint8Array())).toBe(5);
    expect(b.list({ jobIds: [], windowStart: 0, windowEnd: 0 })).toEqual(a.list({ jobIds: [], windowStart: 0, windowEnd: 0 }));
    // an image without the section is the state image itself
    expect(splitArchive(new TextEncoder().encode("SPUR-SNAPSHOT\n")).rows).toBeUndefined();
    // empty archive round-trips
    const empty = openJobArchive(join(dir, "c.sqlite"));
    expect(b.importRows(empty.exportRows())).toBe(0);
    for (const x of [a, b, empty]) x.close();
  });

  it("exports in frames (the text never holds the whole archive) and imports them all", () => {
    const dir = scratchDir("archive-frames-");
    const a = openJobArchive(join(dir, "a.sqlite"));
    a.put(Array.from({ length: 4500 }, (_, i) => rec({ jobId: i + 1, name: `j${i}` })));
    const b = openJobArchive(join(dir, "b.sqlite"));
    const bytes = a.exportRows();
    expect(b.importRows(bytes)).toBe(4500);
    const all = { jobIds: [], windowStart: 0, windowEnd: 0 };
    expect(b.list(all)).toEqual(a.list(all));
    expect(() => b.importRows(bytes.subarray(0, bytes.length - 1))).toThrow("cut short");
    a.close();
    b.close();
  });
});
