/**
 * --bb as Slurm 22.05 without a burst buffer plugin keeps it (oracle: `sbatch --hold --bb=capacity=1G
 * --switches=2@1:00 --cpu-freq=High --wrap true`, `--bb=`, SBATCH_BURST_BUFFER=cap=3G and an
 * `#SBATCH --bb="capacity=2G access=striped"` line): accepted, a `BurstBuffer=` line after
 * Switches= and before the CPU frequency line (empty when given empty, absent when not given),
 * squeue -O BurstBuffer, --json burst_buffer.
 */
import { describe, expect, it } from "vitest";
import { formatJobRecord } from "../../../src/compat/format/scontrol-show-job.ts";
import { jobColumn, jobName } from "../../../src/compat/format/squeue-fields-long.ts";
import { parseArgs } from "../../../src/compat/options/parse-args.ts";
import { sbatchRequest } from "../../../src/compat/options/sbatch-flow.ts";
import { wrapScript } from "../../../src/compat/options/script-directives.ts";
import { cluster, spec, submit } from "../sched/builders.ts";

const NOW = 1_800_000_000;

function jobOf(over: Parameters<typeof spec>[0]) {
  const c = cluster();
  const r = c.run(submit(spec({ name: "x", hold: true, ...over }), NOW));
  const info = c.state.jobs.get(r.ids[0] as number)?.info;
  if (info === undefined) throw new Error(r.error);
  return info;
}

function sbatchSpec(argv: string[], env: Record<string, string> = {}, script = wrapScript("true")) {
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const ctx = { cmd: "sbatch" as const, argv, env, invoker: { cwd: "/tmp", hostname: "login1" }, now: NOW };
  const r = sbatchRequest(ctx, parsed.value.options, { text: script, from: "wrap", args: [] });
  if (!r.ok) throw new Error(r.error.message);
  return r.value.spec;
}

describe("sbatch", () => {
  it("takes --bb from the command line, SBATCH_BURST_BUFFER and #SBATCH, the command line first", () => {
    expect(sbatchSpec(["--bb=capacity=1G"]).burstBuffer).toBe("capacity=1G");
    expect(sbatchSpec([], { SBATCH_BURST_BUFFER: "cap=3G" }).burstBuffer).toBe("cap=3G");
    const script = '#!/bin/bash\n#SBATCH --bb="capacity=2G access=striped"\ntrue\n';
    expect(sbatchSpec([], {}, script).burstBuffer).toBe("capacity=2G access=striped");
    expect(sbatchSpec(["--bb=cli"], { SBATCH_BURST_BUFFER: "env" }, script).burstBuffer).toBe("cli");
  });
});

describe("scontrol show job", () => {
  const show = (over: Parameters<typeof spec>[0]) => formatJobRecord(jobOf(over), { now: NOW, oneLiner: false, detail: false });

  it("prints BurstBuffer= after Switches= and before the CPU frequency line", () => {
    const text = show({ burstBuffer: "capacity=1G", reqSwitch: 2, wait4switchSec: 60, cpuFreq: "High" });
    expect(text).toContain("   Switches=2@00:01:00\n   BurstBuffer=capacity=1G\n   CPU_max_freq=High \n   Power=");
  });

  it("prints it empty when given empty, and not at all when not given", () => {
    expect(show({ burstBuffer: "", givenEmpty: "bb" })).toContain("   BurstBuffer=\n   Power=");
    expect(show({})).not.toContain("BurstBuffer");
  });
});

describe("squeue -O BurstBuffer", () => {
  it("shows the request, (null) without one", () => {
    const column = jobColumn(jobName("burstbuffer") as string);
    const row = (job: ReturnType<typeof jobOf>) => ({ job, now: NOW, cluster: "c" }) as Parameters<typeof column.value>[0];
    expect(column.value(row(jobOf({ burstBuffer: "capacity=1G" })), 20)).toBe("capacity=1G");
    expect(column.value(row(jobOf({})), 20)).toBeUndefined();
  });
});
