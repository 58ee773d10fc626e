/**
 * sacct sends its query (SacctPreselection, as JSON) and the controller leaves out the records it
 * does not select. On generated records (users, names, partitions, accounts, states, eligible,
 * start and end times around the window, held jobs, array records, nodes) and generated sacct
 * command lines (-a, -u, -j, -s, -S, -E, --name, -r, -A, -q, -N, -X, -D, -M), sacct's rows from
 * the preselected records must be its rows from all of them. And the controller applies it.
 */
import { describe, expect, it } from "vitest";
import { listJobViews } from "../../../src/ctld/views.ts";
import { parseSacctArgs } from "../../../src/compat/format/sacct-options.ts";
import { preselected, preselectedUid, sacctPreselection, selectRows, type SelectContext } from "../../../src/compat/format/sacct-select.ts";
import { createRng, type Rng } from "../../../src/lib/rng.ts";
import { job } from "../squeue-sinfo/fixtures.ts";
import { ALICE, cluster, spec, submit } from "../sched/builders.ts";
import { readOnlyController } from "../ctld/fake-controller.ts";

const NOW = 1_796_300_000;
const STATES = ["PENDING", "RUNNING", "COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "SUSPENDED"];

function records(rng: Rng) {
  return Array.from({ length: rng.int(0, 25) }, (_, i) => {
    const state = rng.pick(STATES);
    const submitTime = NOW - rng.int(0, 3) * 40_000 - rng.int(0, 5000);
    const eligibleTime = rng.int(0, 4) === 0 ? 0 : submitTime + rng.int(0, 100);
    const startTime = state === "PENDING" ? 0 : eligibleTime + rng.int(0, 50_000);
    const endTime = ["PENDING", "RUNNING", "SUSPENDED"].includes(state) ? 0 : startTime + rng.int(0, 50_000);
    const array = rng.int(0, 4) === 0;
    return job({
      jobId: 100 + i, arrayJobId: array ? 100 : 0, arrayTaskId: array ? i : -1, name: rng.pick(["a", "b", "wrap"]),
      uid: rng.pick([0, 1000]), user: rng.pick(["root", "alice"]), partition: rng.pick(["debug", "gpu"]), account: rng.pick(["root", "phys"]),
      qos: rng.pick(["normal", "high"]), state, priority: rng.int(0, 2) === 0 ? 0 : 100, submitTime, eligibleTime, startTime, endTime,
      nodelist: startTime === 0 ? "" : rng.pick(["n1", "n[1-2]", "n3"]), reason: rng.pick(["None", "JobHeldUser", "Dependency"]),
    });
  });
}

function commandLine(rng: Rng): string[] {
  const pool: string[][] = [
    ["-a"], ["-u", "alice"], ["-u", "root,alice"], ["-j", "101"], ["-j", "100_3"], ["-j", "102,105"], ["-s", "PD"], ["-s", "R,CD"], ["-s", "CA"],
    ["-S", "now-1days"], ["-S", "2026-01-01"], ["-E", "now-2hours"], ["--name", "a"], ["-r", "gpu"], ["-A", "phys"], ["-q", "high"],
    ["-N", "n1"], ["-X"], ["-D"], ["-M", "other"], ["-M", "all"], ["-L"],
  ];
  return Array.from({ length: rng.int(0, 4) }, () => rng.pick(pool)).flat();
}

describe("sacct's preselection on the controller", () => {
  it("gives sacct the rows it would print from every record", () => {
    const seed = Number(process.env.SEED ?? 9);
    let rows = 0;
    let dropped = 0;
    let narrowed = 0;
    for (let round = 0; round < 800; round++) {
      const rng = createRng(seed + round);
      const all = records(rng);
      const argv = commandLine(rng);
      const parsed = parseSacctArgs(argv, {}, NOW);
      if (!parsed.ok) continue;
      const ctx: SelectContext = { query: parsed.value, invokerUid: rng.pick([0, 1000]), now: NOW, cluster: "test" };
      // as the controller gets it: JSON over the wire
      const sent = JSON.parse(JSON.stringify(sacctPreselection(ctx)));
      const kept = preselected(all, sent, "test");
      // the controller skips other uids' records before making their views: none of them is kept
      const uid = preselectedUid(sent);
      if (uid !== undefined) expect(kept.every((j) => j.uid === uid), `SEED=${seed + round}`).toBe(true);
      if (uid !== undefined) narrowed++;
      const want = selectRows(all, ctx);
      expect(selectRows(kept, ctx), `SEED=${seed + round} sacct ${argv.join(" ")}`).toEqual(want);
      rows += want.length;
      dropped += all.length - kept.length;
    }
    expect(rows).toBeGreaterThan(2000);
    expect(dropped).toBeGreaterThan(2000);
    expect(narrowed).toBeGreaterThan(100);
  });

  it("is applied by the controller's listing", () => {
    const { state, run } = cluster();
    run(submit(spec({ name: "keep" }), 10));
    run(submit(spec({ name: "other" }), 11));
    run(submit(spec({ name: "keep" }), 12, ALICE));
    const controller = readOnlyController(state, 20);
    const parsed = parseSacctArgs(["--name", "keep", "-S", "1970-01-01T00:00:01"], {}, 20);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const req = { includeFinished: true, jobIds: [], includeSteps: true, windowStart: 0, windowEnd: 0, squeueView: "", knownListVersion: "", accounting: true };
    const query = (invokerUid: number) => JSON.stringify(sacctPreselection({ query: parsed.value, invokerUid, now: 20, cluster: "" }));
    expect(listJobViews(controller, { ...req, sacctQuery: "" }, 20).map((j) => j.name)).toEqual(["keep", "other", "keep"]);
    expect(listJobViews(controller, { ...req, sacctQuery: query(0) }, 20).map((j) => j.jobId)).toEqual([1, 3]);
    expect(listJobViews(controller, { ...req, sacctQuery: query(ALICE.uid) }, 20).map((j) => j.jobId)).toEqual([3]);
    // not a query: every record, as an older client gets
    expect(listJobViews(controller, { ...req, sacctQuery: "{\"query\":1}" }, 20)).toHaveLength(3);
  });
});
