/**
 * The controller's listing cache (ctld/list-cache.ts, used by the ListJobs fast path in
 * ctld/service.ts): a repeated squeue gets the same text without the views being built
 * again, and never a stale list: every change through the log, every scheduling pass that
 * changed a reason/priority/plan, and the next second each give a fresh one.
 */
import { createConsola } from "consola";
import { describe, expect, it } from "vitest";
import { createListCache, type ListCacheKey } from "../../../src/ctld/list-cache.ts";
import { createController } from "../../../src/ctld/controller.ts";
import type { AgentLink } from "../../../src/ctld/agent-link.ts";
import { controllerFastJson, type ServiceContext } from "../../../src/ctld/service.ts";
import { RawJson } from "../../../src/net/rpc-server.ts";
import { ROOT, cluster, spec, submit } from "../sched/builders.ts";
import { viewsValidUntil } from "../../../src/ctld/views.ts";

const key = (over: Partial<ListCacheKey> = {}): ListCacheKey => ({ request: "{}", appliedIndex: 1, viewsVersion: 1, ...over });

describe("createListCache", () => {
  it("builds once per key, again when any part of the key moves or the entry's time is up", () => {
    const cache = createListCache();
    let builds = 0;
    const build = (validUntil = Infinity) => () => ({ text: `list${++builds}`, validUntil });
    expect(cache.get(key(), 100, build()).text).toBe("list1");
    expect(cache.get(key(), 5000, build()).text).toBe("list1");
    expect(cache.get(key({ appliedIndex: 2 }), 100, build()).text).toBe("list2");
    expect(cache.get(key({ appliedIndex: 2, viewsVersion: 2 }), 100, build(101)).text).toBe("list3");
    expect(cache.get(key({ appliedIndex: 2, viewsVersion: 2 }), 100.9, build()).text).toBe("list3");
    expect(cache.get(key({ appliedIndex: 2, viewsVersion: 2 }), 101, build()).text).toBe("list4");
    expect(cache.get(key({ appliedIndex: 2, viewsVersion: 2, request: '{"jobIds":[1]}' }), 101, build()).text).toBe("list5");
    expect(cache.get(key({ appliedIndex: 2, viewsVersion: 2 }), 101, build()).text).toBe("list4");
    expect(cache.stats()).toEqual({ hits: 3, misses: 5 });
  });

  it("names each text it builds: the same version while served, a new one for each build", () => {
    const cache = createListCache({ epoch: "e" });
    const build = (text: string) => () => ({ text, validUntil: Infinity });
    const a = cache.get(key(), 1, build("x"));
    expect(cache.get(key(), 2, build("y"))).toEqual(a);
    const b = cache.get(key({ appliedIndex: 2 }), 2, build("x"));
    expect(b.text).toBe("x");
    expect(b.version).not.toBe(a.version);
    expect(createListCache({ epoch: "f" }).get(key(), 1, build("x")).version).not.toBe(a.version);
  });

  it("keeps the newest entries within the size cap, all together", () => {
    const cache = createListCache({ textCharsMax: 10 });
    let builds = 0;
    const build = (text: string) => () => (builds++, { text, validUntil: Infinity });
    cache.get(key({ request: "a" }), 1, build("123456"));
    cache.get(key({ request: "b" }), 1, build("123456"));
    cache.get(key({ request: "b" }), 1, build("123456"));
    cache.get(key({ request: "a" }), 1, build("123456"));
    expect(builds).toBe(3);
  });

  it("does not keep a text above its size cap", () => {
    const cache = createListCache({ textCharsMax: 3 });
    let builds = 0;
    cache.get(key(), 1, () => ({ text: `long${++builds}`, validUntil: Infinity }));
    cache.get(key(), 1, () => ({ text: `long${++builds}`, validUntil: Infinity }));
    expect(builds).toBe(2);
  });
});

describe("ListJobs through the cache", () => {
  function setup() {
    const { state } = cluster();
    let now = 100.25;
    const controller = createController({
      state, logger: createConsola({ level: -999 }), now: () => now, agents: {} as AgentLink,
      replication: { propose: () => Promise.reject(new Error("unused")), isServing: () => false },
    });
    const sc = { controller, now: () => now } as unknown as ServiceContext;
    const list = controllerFastJson(sc)["/spur.v1.Controller/ListJobs"] as (req: unknown) => unknown;
    const call = (): { jobs: { jobId: number }[]; now: number; clusterName: string } => {
      const answer = list({});
      expect(answer).toBeInstanceOf(RawJson);
      return JSON.parse((answer as RawJson).text);
    };
    return { controller, call, setNow: (t: number) => (now = t) };
  }

  it("answers what the uncached path answered: every job, now and the cluster name", () => {
    const { controller, call } = setup();
    controller.applyCommitted(submit(spec({ name: "a" })), 1);
    const answer = call();
    expect(answer.jobs.map((j) => j.jobId)).toEqual([1]);
    expect(answer.now).toBe(100.25);
    expect(answer.clusterName).toBe(controller.state.config.clusterName);
  });

  it("shows a job submitted right after a cached listing (same second)", () => {
    const { controller, call } = setup();
    controller.applyCommitted(submit(spec()), 1);
    expect(call().jobs).toHaveLength(1);
    controller.applyCommitted(submit(spec()), 2);
    expect(call().jobs).toHaveLength(2);
  });

  it("gives the current time with a cached list", () => {
    const { controller, call, setNow } = setup();
    controller.applyCommitted(submit(spec()), 1);
    call();
    setNow(100.75);
    expect(call().now).toBe(100.75);
    setNow(5000);
    expect(call().now).toBe(5000);
  });

  it("drops a finished job after MinJobAge even when nothing else changed", () => {
    const { controller, call, setNow } = setup();
    controller.applyCommitted(submit(spec()), 1);
    controller.applyCommitted({ v: 1, type: "cancel", at: 100, signal: 0, batchOnly: false, by: ROOT, filter: { jobIds: ["1"], user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" } }, 2);
    expect(call().jobs).toHaveLength(1);
    setNow(100 + controller.state.config.minJobAgeSec + 1);
    expect(call().jobs).toHaveLength(0);
  });

  it("lists a pending job's dependency afresh every second", () => {
    const { controller, call, setNow } = setup();
    controller.applyCommitted(submit(spec()), 1);
    controller.applyCommitted(submit(spec({ dependency: "afterok:1" })), 2);
    const first = call();
    setNow(101.5);
    expect(call()).not.toBe(first);
    expect(viewsValidUntil(controller, 101.5)).toBe(102);
  });

  it("reads only the named jobs' records for a request by id", () => {
    const { controller } = setup();
    controller.applyCommitted(submit(spec()), 1);
    controller.applyCommitted(submit(spec({ dependency: "afterok:1" })), 2);
    controller.applyCommitted(submit(spec()), 3);
    controller.applyCommitted({ v: 1, type: "cancel", at: 100, signal: 0, batchOnly: false, by: ROOT, filter: { jobIds: ["3"], user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" } }, 4);
    const hidden = 100 + controller.state.config.minJobAgeSec;
    // Job 2's dependency holds its own view to the second; job 3 leaves the list after MinJobAge.
    expect(viewsValidUntil(controller, 101.5)).toBe(102);
    expect(viewsValidUntil(controller, 101.5, [2])).toBe(102);
    expect(viewsValidUntil(controller, 101.5, [3])).toBe(hidden);
    expect(viewsValidUntil(controller, 101.5, [1])).toBe(Infinity);
    expect(viewsValidUntil(controller, 101.5, [1, 3, 3])).toBe(hidden);
  });

  it("a leadership change moves the views version", () => {
    const { controller } = setup();
    const before = controller.viewsVersion();
    controller.leadershipChanged(false);
    expect(controller.viewsVersion()).not.toBe(before);
  });
});
