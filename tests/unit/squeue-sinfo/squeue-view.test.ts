/**
 * squeue's listing rendered by the controller (ctld/list-jobs-fast.ts, squeue_view) is the text
 * squeue renders itself from the job list: on generated queues (many-jobs.ts) and generated
 * option sets (formats over every -o letter and -O name, widths, filters, sorts, -h, -r, -P, -l),
 * each run twice through squeueMain: once against the controller's real ListJobs body with the
 * view (it answers squeueText), once against a controller that ignores the view (an older one:
 * it answers the jobs, as they cross the wire: defaults left out, JSON, defaults restored).
 * Seeded; the seed is printed, and SQUEUE_VIEW_SEED replays one.
 */
import { createConsola } from "consola";
import { describe, expect, it } from "vitest";
import { squeueMain } from "../../../src/cli/squeue.ts";
import { createController, type Controller } from "../../../src/ctld/controller.ts";
import type { AgentLink } from "../../../src/ctld/agent-link.ts";
import { createListCache, type ListCache } from "../../../src/ctld/list-cache.ts";
import { listJobsBody, renderableView } from "../../../src/ctld/list-jobs-fast.ts";
import { LETTER_FIELDS } from "../../../src/compat/format/squeue-fields.ts";
import { NAME_ONLY_FIELDS } from "../../../src/compat/format/squeue-fields-long.ts";
import { SQUEUE_VIEW_VERSION, viewToWire } from "../../../src/compat/format/squeue-view.ts";
import { withDefaults } from "../../../src/lib/sparse.ts";
import { emptyJobInfo, emptyJobSpec } from "../../../src/sched/model/records.ts";
import type { ControllerPort, ListJobsAnswer } from "../../../src/net/ctl-port.ts";
import { cluster } from "../sched/builders.ts";
import type { Job } from "./fixtures.ts";
import { fakePort } from "./golden.ts";
import { MANY_NOW, manyJobs } from "./many-jobs.ts";

process.env.TZ = "UTC";

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 0x100000000;
  };
}

/** A controller whose state holds exactly `jobs` (as apply would have left them). */
function controllerWith(jobs: readonly Job[]): Controller {
  const { state } = cluster();
  for (const info of jobs) {
    state.jobs.set(info.jobId, { info, spec: emptyJobSpec(), arrayPending: [], arrayThrottle: 0, nextStepId: 1, endRequested: "", sequence: info.submitTime });
  }
  return createController({
    state, logger: createConsola({ level: -999 }), now: () => MANY_NOW, agents: {} as AgentLink,
    replication: { propose: () => Promise.reject(new Error("unused")), isServing: () => false },
  });
}

/** ListJobs as the real port answers it (net/ctl-client/controller-port.ts), from the controller's body text. */
function answerOf(body: string): ListJobsAnswer {
  const res = JSON.parse(body) as Partial<ListJobsAnswer>;
  const defaults = emptyJobInfo();
  return { now: 0, clusterName: "", ...res, jobs: (res.jobs ?? []).map((j) => withDefaults(j, defaults)) };
}

function portOver(c: Controller, cache: ListCache, honourView: boolean, rendered: { count: number }) {
  const base = fakePort({ jobs: [], now: MANY_NOW });
  const listJobs: ControllerPort["listJobs"] = async (req) => {
    const asked = honourView ? req : { ...req, squeueView: "" };
    const answer = answerOf(listJobsBody(c, cache, asked, MANY_NOW));
    if (answer.squeueText !== undefined) rendered.count++;
    return answer;
  };
  return { ...base, ctl: { ...base.ctl, listJobs } };
}

const pick = <T,>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const some = <T,>(r: () => number, xs: readonly T[], n: number): T[] => Array.from({ length: n }, () => pick(r, xs));

const LETTERS = LETTER_FIELDS.flatMap((f) => (f.letter === undefined ? [] : [f.letter]));
const NAMES = [...LETTER_FIELDS, ...NAME_ONLY_FIELDS].map((f) => f.key);
const SORT_LETTERS = ["i", "P", "t", "p", "M", "L", "S", "u", "j", "N", "V", "e", "Q", "D", "C", "T", "l", "m"];

function letterFormat(r: () => number): string {
  return some(r, LETTERS, 1 + Math.floor(r() * 8))
    .map((l) => `%${r() < 0.5 ? "." : ""}${r() < 0.6 ? String(1 + Math.floor(r() * 20)) : ""}${l}`)
    .join(r() < 0.8 ? " " : "|");
}

function nameFormat(r: () => number): string {
  return some(r, NAMES, 1 + Math.floor(r() * 6))
    .map((n) => `${n}${r() < 0.5 ? `:${r() < 0.5 ? "." : ""}${1 + Math.floor(r() * 20)}` : ""}`)
    .join(",");
}

/** One squeue command line over `jobs`. */
function argvFor(r: () => number, jobs: readonly Job[]): string[] {
  const argv: string[] = [];
  const roll = r();
  if (roll < 0.15) argv.push("-l");
  else if (roll < 0.55) argv.push("-o", letterFormat(r));
  else if (roll < 0.8) argv.push("-O", nameFormat(r));
  if (r() < 0.3) argv.push("-u", some(r, ["alice", "bob", "carol", "root", "1"], 2).join(","));
  if (r() < 0.2) argv.push("-p", pick(r, ["gpu", "debug", "debug,gpu"]));
  if (r() < 0.3) argv.push("-t", pick(r, ["PD", "R", "all", "PD,R", "CD,F", "S"]));
  if (r() < 0.15) {
    const ids = some(r, jobs, 1 + Math.floor(r() * 3)).map((j) => (j.arrayJobId !== 0 && r() < 0.5 ? `${j.arrayJobId}_${Math.max(0, j.arrayTaskId)}` : String(j.jobId)));
    argv.push("-j", ids.join(","));
  }
  if (r() < 0.1) argv.push("-n", some(r, ["job1", "run3", "arr2", "nothing"], 2).join(","));
  if (r() < 0.3) argv.push("-S", some(r, SORT_LETTERS, 1 + Math.floor(r() * 3)).map((l) => `${r() < 0.3 ? "-" : ""}${l}`).join(","));
  if (r() < 0.2) argv.push("-h");
  if (r() < 0.15) argv.push("-r");
  if (r() < 0.1) argv.push("-P");
  return argv;
}

const SEED = Number(process.env.SQUEUE_VIEW_SEED ?? Date.now() % 1_000_000);

describe("controller-rendered squeue text", () => {
  it(`equals squeue's own rendering over generated queues and options (seed ${SEED})`, async () => {
    console.log(`squeue-view seed: ${SEED} (SQUEUE_VIEW_SEED=${SEED} replays it)`);
    const r = rng(SEED);
    const rendered = { count: 0 };
    let cases = 0;
    for (let q = 0; q < 4; q++) {
      const jobs = manyJobs(50 + Math.floor(r() * 400), 1 + Math.floor(r() * 1000));
      const c = controllerWith(jobs);
      const viaView = portOver(c, createListCache(), true, rendered);
      const viaJobs = portOver(c, createListCache(), false, { count: 0 });
      for (let k = 0; k < 40; k++) {
        const argv = argvFor(r, jobs);
        const a = await squeueMain(argv, viaView);
        const b = await squeueMain(argv, viaJobs);
        expect({ argv, ...a }).toEqual({ argv, ...b });
        cases++;
      }
    }
    // Most command lines are ones the controller renders (bad -S and a missing single -j are not).
    expect(rendered.count).toBeGreaterThan(cases / 2);
  });

  it("serves a repeated identical listing from the cache, and knows when its text read the clock", () => {
    const jobs = manyJobs(200, 3);
    const c = controllerWith(jobs);
    const cache = createListCache();
    const view = { v: SQUEUE_VIEW_VERSION, format: "%i %M", noHeader: false, array: false, priority: false, selection: {} };
    const first = answerOf(listJobsBody(c, cache, { squeueView: viewToWire(view) }, MANY_NOW));
    const again = answerOf(listJobsBody(c, cache, { squeueView: viewToWire(view) }, MANY_NOW + 0.5));
    expect(again.squeueText).toBe(first.squeueText);
    expect(again.listVersion).toBe(first.listVersion);
    // running jobs' %M moves with the clock: the next second is a new text
    const next = answerOf(listJobsBody(c, cache, { squeueView: viewToWire(view) }, MANY_NOW + 1));
    expect(next.listVersion).not.toBe(first.listVersion);
    expect(next.squeueText).not.toBe(first.squeueText);
    // pending jobs only (-t PD): no clock read, the text holds
    const pending = { ...view, selection: { states: ["PENDING"] } };
    const p1 = answerOf(listJobsBody(c, cache, { squeueView: viewToWire(pending) }, MANY_NOW));
    const p2 = answerOf(listJobsBody(c, cache, { squeueView: viewToWire(pending) }, MANY_NOW + 5));
    expect(p2.listVersion).toBe(p1.listVersion);
  });

  it("answers listUnchanged for the version the caller holds, and the list again once it moved", () => {
    const c = controllerWith(manyJobs(50, 5));
    const cache = createListCache({ epoch: "t" });
    const full = answerOf(listJobsBody(c, cache, {}, MANY_NOW));
    expect(full.jobs.length).toBeGreaterThan(0);
    const same = answerOf(listJobsBody(c, cache, { knownListVersion: full.listVersion ?? "" }, MANY_NOW + 3));
    expect(same).toMatchObject({ listUnchanged: true, listVersion: full.listVersion, jobs: [] });
    c.state.appliedIndex++;
    const moved = answerOf(listJobsBody(c, cache, { knownListVersion: full.listVersion ?? "" }, MANY_NOW + 3));
    expect(moved.listUnchanged).toBeUndefined();
    expect(moved.jobs).toHaveLength(full.jobs.length);
    expect(moved.listVersion).not.toBe(full.listVersion);
  });

  it("names its time zone when the text prints local times, and only then; takes only view versions it knows", () => {
    const c = controllerWith(manyJobs(100, 9));
    const cache = createListCache();
    const view = { v: SQUEUE_VIEW_VERSION, format: "%i %S", noHeader: false, array: false, priority: false, selection: {} };
    const withTimes = answerOf(listJobsBody(c, cache, { squeueView: viewToWire(view) }, MANY_NOW));
    expect(withTimes.squeueTextZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    const noTimes = answerOf(listJobsBody(c, cache, { squeueView: viewToWire({ ...view, format: "%i %M" }) }, MANY_NOW));
    expect(noTimes.squeueText).toBeDefined();
    expect(noTimes.squeueTextZone).toBeUndefined();
    expect(renderableView(viewToWire({ ...view, v: SQUEUE_VIEW_VERSION + 1 }))).toBeUndefined();
    expect(renderableView("not json")).toBeUndefined();
    expect(renderableView("")).toBeUndefined();
  });

  it("squeue does not use a text with another zone's local times: it asks for the jobs and renders them", async () => {
    const jobs = manyJobs(60, 11);
    const plain = fakePort({ jobs, now: MANY_NOW });
    const asked: boolean[] = [];
    const otherZone = {
      ...plain,
      ctl: {
        ...plain.ctl,
        listJobs: async (req: Parameters<ControllerPort["listJobs"]>[0]) => {
          asked.push((req.squeueView ?? "") !== "");
          return req.squeueView ? { jobs: [], now: MANY_NOW, clusterName: "oracle", squeueText: "WRONG\n", squeueTextZone: "Mars/Olympus_Mons" } : plain.ctl.listJobs(req);
        },
      },
    };
    const argv = ["-o", "%i %S %V"];
    expect(await squeueMain(argv, otherZone)).toEqual(await squeueMain(argv, plain));
    expect(asked).toEqual([true, false]);
  });
});
