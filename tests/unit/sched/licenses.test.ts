/**
 * Licenses (slurm.conf Licenses=, -L): validation with Slurm's wording, the reason
 * `Licenses`, `a|b` taking whichever is free, apply()'s re-check, and the EASY rule
 * through licenses: a backfilled job never delays the reservation of a job waiting
 * for a license.
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { licensesInUse } from "../../../src/sched/plan/licenses.ts";
import { licensesShowText, parseLicenseConf, parseLicenseRequest } from "../../../src/compat/licenses.ts";
import { CONF, cluster, spec, submit } from "./builders.ts";
import { createRng } from "../../../src/lib/rng.ts";

const LIC_CONF = `${CONF}Licenses=fluent:3,matlab\nAccountingStorageTRES=gres/gpu,license/fluent\n`;

const pass = (c: ReturnType<typeof cluster>, at: number) => {
  const r = schedule(c.state, at);
  if (r.decisions.length > 0) c.run({ v: 1, type: "startJobs", at, decisions: r.decisions });
  return r;
};

const info = (c: ReturnType<typeof cluster>, id: number | undefined) => c.state.jobs.get(id ?? 0)?.info;

describe("license text", () => {
  it("slurm.conf Licenses=: count 1 when absent, ':' or '*'", () => {
    expect(parseLicenseConf("fluent:3,matlab,ansys*2")).toEqual({ ok: true, value: new Map([["fluent", 3], ["matlab", 1], ["ansys", 2]]) });
    expect(parseLicenseConf("bad name").ok).toBe(false);
  });

  it("requests: counts, a,b (all), a|b (any one); unknown, zero, too many and mixed forms are Slurm's 'Invalid license specification'", () => {
    const totals = new Map([["fluent", 3], ["matlab", 1]]);
    expect(parseLicenseRequest("fluent:2,matlab", totals)).toEqual({ ok: true, value: { anyOf: false, items: [{ name: "fluent", count: 2 }, { name: "matlab", count: 1 }] } });
    expect(parseLicenseRequest("fluent|matlab", totals)).toEqual({ ok: true, value: { anyOf: true, items: [{ name: "fluent", count: 1 }, { name: "matlab", count: 1 }] } });
    for (const bad of ["foo", "fluent:4", "fluent:0", "fluent|matlab,fluent", "fluent:2,fluent:2", ""]) {
      expect(parseLicenseRequest(bad, totals)).toMatchObject({ ok: false, error: { message: "Invalid license specification" } });
    }
  });

  it("scontrol show licenses: sorted, two-line layout or one line with -o; none configured", () => {
    const rows = [{ name: "matlab", total: 1, used: 0, reserved: 0 }, { name: "fluent", total: 3, used: 2, reserved: 0 }];
    expect(licensesShowText(rows, false)).toBe(
      "LicenseName=fluent\n    Total=3 Used=2 Free=1 Reserved=0 Remote=no\nLicenseName=matlab\n    Total=1 Used=0 Free=1 Reserved=0 Remote=no\n",
    );
    expect(licensesShowText(rows, true, "matlab")).toBe("LicenseName=matlab Total=1 Used=0 Free=1 Reserved=0 Remote=no\n");
    // oracle (Slurm 22.05, no Licenses= configured)
    expect(licensesShowText([], false)).toBe("No licenses configured in Slurm.\n");
  });
});

describe("licenses in the controller", () => {
  it("are configuration of the replicated state; an unknown license is refused at submission", () => {
    const c = cluster(LIC_CONF);
    expect(c.state.licenses).toEqual(new Map([["fluent", 3], ["matlab", 1]]));
    expect(c.run(submit(spec({ licenses: "foo" }))).error).toBe("Invalid license specification");
    expect(c.run(submit(spec({ licenses: "fluent:9" }))).error).toBe("Invalid license specification");
    expect(cluster().run(submit(spec({ licenses: "fluent" }))).error).toBe("Invalid license specification");
    // refused, not recorded: no id was used
    expect(c.state.jobs.size).toBe(0);
  });

  it("a job short of licenses waits with reason Licenses and does not block its partition", () => {
    const c = cluster(LIC_CONF);
    const a = c.run(submit(spec({ licenses: "fluent:2", timeLimitMin: 60 }))).ids[0];
    const b = c.run(submit(spec({ licenses: "fluent:2", timeLimitMin: 60 }))).ids[0];
    const plain = c.run(submit(spec({ timeLimitMin: 60 }))).ids[0];
    const r = pass(c, 100);
    expect(r.decisions.map((d) => d.jobId)).toEqual([a, plain]);
    expect(r.reasons.get(b ?? 0)).toBe("Licenses");
    expect(info(c, a)).toMatchObject({ licenses: "fluent:2", licensesAlloc: "fluent:2" });
    expect(info(c, a)?.tresAlloc).toMatch(/,license\/fluent=2$/);
    expect(info(c, b)?.tresReq).toMatch(/,license\/fluent=2$/);
    expect(licensesInUse(c.state)).toEqual(new Map([["fluent", 2]]));
    c.run({ v: 1, type: "jobEnded", at: 200, jobId: a ?? 0, exitCode: 0, exitSignal: 0, outcome: "" });
    expect(licensesInUse(c.state)).toEqual(new Map());
    expect(pass(c, 201).decisions.map((d) => d.jobId)).toEqual([b]);
  });

  it("a|b takes the first that is free and records which", () => {
    const c = cluster(LIC_CONF);
    const first = c.run(submit(spec({ licenses: "matlab" }))).ids[0];
    const either = c.run(submit(spec({ licenses: "matlab|fluent" }))).ids[0];
    pass(c, 100);
    expect(info(c, first)?.licensesAlloc).toBe("matlab:1");
    expect(info(c, either)).toMatchObject({ licenses: "matlab:1|fluent:1", licensesAlloc: "fluent:1" });
  });

  it("apply() re-checks licenses: a stale start beyond the total is dropped", () => {
    const c = cluster(LIC_CONF);
    const a = c.run(submit(spec({ licenses: "fluent:3" }))).ids[0] ?? 0;
    const b = c.run(submit(spec({ licenses: "fluent:3" }))).ids[0] ?? 0;
    const r = schedule(c.state, 100);
    const decision = r.decisions[0];
    expect(decision?.jobId).toBe(a);
    c.run({ v: 1, type: "startJobs", at: 100, decisions: r.decisions });
    const stale = { jobId: b, arrayTaskId: decision?.arrayTaskId ?? 0, alloc: [{ node: "n2", cpus: 1, memMib: 256, gpuIndices: [], tasks: 1 }], licenses: "fluent:3" };
    expect(c.run({ v: 1, type: "startJobs", at: 101, decisions: [stale] }).ids).toEqual([]);
    expect(info(c, b)?.state).toBe("PENDING");
  });

  it("EASY through licenses: a short job backfills, a long one would delay the reserved start and waits", () => {
    const c = cluster(LIC_CONF);
    const running = c.run(submit(spec({ licenses: "fluent:2", timeLimitMin: 60 }))).ids[0];
    pass(c, 10);
    expect(info(c, running)?.state).toBe("RUNNING");
    const big = c.run(submit(spec({ licenses: "fluent:3", timeLimitMin: 60 }), 11)).ids[0] ?? 0;
    const long = c.run(submit(spec({ licenses: "fluent:1", timeLimitMin: 120 }), 12)).ids[0] ?? 0;
    const short = c.run(submit(spec({ licenses: "fluent:1", timeLimitMin: 30 }), 13)).ids[0] ?? 0;
    const r = pass(c, 60);
    expect(r.decisions.map((d) => d.jobId)).toEqual([short]);
    expect(r.reasons.get(big)).toBe("Licenses");
    expect(r.reasons.get(long)).toBe("Licenses");
    // the big job's planned start is when the running job's licenses come back (its end, 10 + 3600, on the 60 s grid)
    expect(r.reservations.find((x) => x.jobId === big)?.startTime).toBe(3660);
  });
});

describe("licenses in snapshots", () => {
  it("the totals and what running jobs hold come back from a snapshot image", async () => {
    const { encodeSnapshot, restoreSnapshot } = await import("../../../src/ctld/state-snapshot.ts");
    const c = cluster(LIC_CONF);
    c.run(submit(spec({ licenses: "fluent:2" })));
    pass(c, 100);
    const image = encodeSnapshot(c.state, 7);
    // a replica whose configuration has other totals still restores the replicated ones
    const restored = cluster(`${CONF}Licenses=fluent:9\n`, false);
    expect(restoreSnapshot(restored.state, image)).toBe(7);
    expect(restored.state.licenses).toEqual(new Map([["fluent", 3], ["matlab", 1]]));
    expect(licensesInUse(restored.state)).toEqual(new Map([["fluent", 2]]));
  });
});

/**
 * Seeded properties over random queues that ask for licenses (SEED=<n> replays one):
 * no pass over-allocates a license (apply accepts every decision and use stays within
 * the totals), and EASY through licenses: starting a pass's decisions never delays the
 * reservation of a job waiting for licenses.
 */
describe("license properties", () => {
  const SEEDS = process.env.SEED ? [Number(process.env.SEED)] : Array.from({ length: 40 }, (_, i) => i + 1);
  const LICENSES = ["fluent:2", "fluent:1", "fluent:3", "matlab", "fluent|matlab", "fluent:1,matlab"];

  it(`within totals, and no delayed reservation (${SEEDS.length} seeds)`, () => {
    let waitedOnLicenses = 0;
    for (const seed of SEEDS) {
      const rng = createRng(seed);
      try {
        const c = cluster(LIC_CONF);
        let now = 100;
        for (let round = 0; round < 6; round++) {
          for (let k = rng.int(1, 5); k > 0; k--) {
            const licenses = rng.next() < 0.8 ? rng.pick(LICENSES) : "";
            c.run(submit(spec({ licenses, ntasks: rng.int(1, 3), timeLimitMin: rng.pick([1, 5, 30, 60, 200]) }), now));
          }
          const before = schedule(c.state, now);
          const waiting = before.reservations.filter((x) => before.reasons.get(x.jobId) === "Licenses");
          waitedOnLicenses += waiting.length;
          const applied = c.run({ v: 1, type: "startJobs", at: now, decisions: before.decisions });
          expect(applied.ids.length).toBe(before.decisions.length);
          for (const [name, used] of licensesInUse(c.state)) expect(used).toBeLessThanOrEqual(c.state.licenses?.get(name) ?? 0);
          const after = schedule(c.state, now);
          for (const planned of waiting) {
            const again = after.reservations.find((x) => x.jobId === planned.jobId);
            expect(again, `job ${planned.jobId} keeps a reservation`).toBeDefined();
            expect(again?.startTime ?? Infinity).toBeLessThanOrEqual(planned.startTime);
          }
          now += rng.int(30, 1200);
          for (const job of [...c.state.jobs.values()]) {
            const i = job.info;
            if (i.state === "RUNNING" && i.timeLimitMin !== undefined && i.startTime + i.timeLimitMin * 60 <= now) {
              c.run({ v: 1, type: "jobEnded", at: now, jobId: i.jobId, exitCode: 0, exitSignal: 0, outcome: "" });
            }
          }
        }
      } catch (error) {
        throw new Error(`SEED=${seed} failed (replay: SEED=${seed} bun --bun vitest run tests/unit/sched/licenses.test.ts): ${String(error)}`);
      }
    }
    // the property was exercised, not vacuous
    expect(waitedOnLicenses).toBeGreaterThan(10);
  });
});
