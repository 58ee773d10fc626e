/**
 * How --exclusive=user and --prefer read in the job's outputs (oracle 22.05, checked by hand on
 * the shared oracle: scontrol OverSubscribe=USER and a `Prefer=` line after Features= only when
 * set, squeue %h USER, --json "shared": "user" and "prefer"), and the 26.05 job environment.
 */
import { describe, expect, it } from "vitest";
import { formatJobRecord } from "../../../src/compat/format/scontrol-show-job.ts";
import { exclusiveEnvText, overSubscribeEnvText, overSubscribeText, sharedJsonText } from "../../../src/compat/oversubscribe.ts";
import { ROOT, cluster, spec, submit } from "../sched/builders.ts";

const NOW = 1_800_000_000;

function jobOf(over: Parameters<typeof spec>[0]) {
  const c = cluster();
  c.run({ v: 1, type: "updateNode", at: 5, nodes: ["n2"], state: "", reason: "", by: ROOT, features: "fast" });
  const r = c.run(submit(spec({ name: "x", hold: true, ...over }), NOW));
  const info = c.state.jobs.get(r.ids[0] as number)?.info;
  if (info === undefined) throw new Error(r.error);
  return info;
}

describe("the sharing texts", () => {
  it.each([
    [{ exclusive: true }, "NO", "NODE", "NO", "none"],
    [{ exclusive: false, exclusiveUser: true }, "USER", "USER", "OK", "user"],
    [{ exclusive: false, oversubscribe: true }, "YES", "NO", "YES", null],
    [{ exclusive: false }, "OK", "NO", "OK", null],
  ])("%j", (job, shown, exclusiveEnv, overEnv, json) => {
    expect([overSubscribeText(job), exclusiveEnvText(job), overSubscribeEnvText(job), sharedJsonText(job)]).toEqual([shown, exclusiveEnv, overEnv, json]);
  });
});

describe("scontrol show job", () => {
  it("shows OverSubscribe=USER for --exclusive=user", () => {
    const text = formatJobRecord(jobOf({ exclusiveUser: true }), { now: NOW, oneLiner: false, detail: false });
    expect(text).toContain("   OverSubscribe=USER Contiguous=0");
  });

  it("prints Prefer= on its own line after Features= only when the job has one", () => {
    const text = formatJobRecord(jobOf({ prefer: "fast" }), { now: NOW, oneLiner: false, detail: false });
    expect(text).toContain("   Features=(null) DelayBoot=00:00:00\n   Prefer=fast\n   OverSubscribe=OK");
    expect(formatJobRecord(jobOf({}), { now: NOW, oneLiner: false, detail: false })).not.toContain("Prefer=");
  });
});
