/**
 * The record a submission makes, checked against the 22.05 oracle (real-scripts corpus,
 * issue 15): the TRES request of --mem=0, of --gpus beside --gres=gpu, and --mem-per-gpu's
 * per-CPU memory.
 */
import { describe, expect, it } from "vitest";
import { ROOT, cluster, spec, submit } from "./builders.ts";
import { formatJobRecord } from "../../../src/compat/format/scontrol-show-job.ts";
import { makeJob } from "../sacct-scontrol/helpers.ts";
import { NAME_ONLY_FIELDS } from "../../../src/compat/format/squeue-fields-long.ts";

function info(over: Parameters<typeof spec>[0]) {
  const c = cluster();
  const r = c.run(submit(spec({ hold: true, ...over })));
  expect(r.error).toBe("");
  return c.state.jobs.get(r.ids[0] as number)!.info;
}

describe("submission record", () => {
  it("--mem=0 asks for all of each node's memory in TRES (oracle: -N 2 --mem=0 is mem=8000M on 4000M nodes)", () => {
    expect(info({ partition: "gpu", memPerNodeMib: 0, nodesMin: 2, nodesMax: 2 }).tresReq).toMatch(/,mem=16000M,node=2,/);
    expect(info({ partition: "gpu", memPerNodeMib: 0 }).tresReq).toMatch(/,mem=8000M,node=1,/);
  });

  it("--mem-per-cpu=0 is all of each node's memory too (oracle 22.05: mem=4000M, -N2 mem=8000M, MinMemoryNode=0; differential seed 9795)", () => {
    // the partition's largest node per node, as --mem=0 (this cluster's debug partition has 8000M nodes)
    expect(info({ memPerCpuMib: 0 }).tresReq).toMatch(/,mem=8000M,node=1,/);
    expect(info({ memPerCpuMib: 0, ntasks: 2 }).tresReq).toMatch(/,mem=8000M,node=1,/);
    expect(info({ memPerCpuMib: 0, nodesMin: 2, nodesMax: 2 }).tresReq).toMatch(/,mem=16000M,node=2,/);
    expect(info({ memPerCpuMib: 0, nodesMin: 2, nodesMax: 2 }).tresReq).toBe(info({ memPerNodeMib: 0, nodesMin: 2, nodesMax: 2 }).tresReq);
  });

  it("GPUs per job and per node count once, the larger (oracle: -G 3 --gres=gpu:3 is gres/gpu=3)", () => {
    expect(info({ partition: "gpu", gpus: "3", gresPerNode: [{ name: "gpu", type: "", count: 3 }] }).tresReq).toMatch(/gres\/gpu=3$/);
  });

  it("--mem-per-gpu keeps the default per-CPU memory in the record (oracle: MinMemoryCPU=256M)", () => {
    const i = info({ partition: "gpu", gpus: "2", memPerGpuMib: 10240 });
    expect([i.memPerCpuMib, i.memPerNodeMib]).toEqual([256, 0]);
    expect(i.tresReq).toMatch(/mem=20G/);
  });
});

describe("node lists in the record", () => {
  it("are sorted and ranged (oracle: -w n4,n3 is ReqNodeList=n[3-4], -x n2,n1 is ExcNodeList=n[1-2])", () => {
    const i = info({ nodelist: "n4,n3", exclude: "n2,n1", nodesMin: 2, nodesMax: 2 });
    expect([i.reqNodelist, i.excNodelist]).toEqual(["n[3-4]", "n[1-2]"]);
  });
});

describe("--ntasks-per-core", () => {
  it("is recorded (NtasksPerN:B:S:C=..:C) and overrides --hint's thread count (oracle 22.05)", () => {
    const a = info({ ntasksPerCore: 1 });
    expect([a.ntasksPerCore, a.reqThreadsPerCore]).toEqual([1, undefined]);
    expect(info({ hint: "nomultithread" }).reqThreadsPerCore).toBe(1);
    expect(info({ hint: "nomultithread", ntasksPerCore: 1 }).reqThreadsPerCore).toBeUndefined();
  });
});

describe("requeue of a job that has not run", () => {
  it("answers Slurm's ESLURM_JOB_PENDING (oracle 22.05: Job is pending execution)", () => {
    const c = cluster();
    const id = c.run(submit(spec({ hold: true }))).ids[0] as number;
    for (const action of ["requeue", "requeuehold"] as const) {
      const r = c.run({ v: 1, type: "updateJob", at: 11, jobIds: [String(id)], action, fields: {}, by: ROOT });
      expect(r.items[0]?.error).toBe("Job is pending execution");
    }
  });
});

describe("--gpus-per-task in the record", () => {
  it("counts GPUs per task times tasks in TRES and shows TresPerTask in 22.05's form (oracle: -N 2 --ntasks-per-node=3 --gpus-per-task=2 is gres/gpu=12)", () => {
    const i = info({ partition: "gpu", nodesMin: 2, nodesMax: 2, ntasksPerNode: 3, gpusPerTask: "2", cpusPerTask: 1 });
    expect(i.tresReq).toMatch(/gres\/gpu=12$/);
    const text = formatJobRecord(makeJob({ jobId: 9, tresPerTask: i.tresPerTask ?? "" }), { now: 0, oneLiner: false, detail: false });
    expect(text).toContain("TresPerTask=gres:gpu:2\n");
    expect(formatJobRecord(makeJob({ jobId: 10, tresPerTask: "cpu=4" }), { now: 0, oneLiner: false, detail: false })).not.toContain("TresPerTask");
    // a count of 0 is recorded (oracle 22.05: --gpus-per-task=0 is TresPerTask=gres:gpu:0; soak seed 8113)
    const zero = info({ gpusPerTask: "0" });
    expect(formatJobRecord(makeJob({ jobId: 11, tresPerTask: zero.tresPerTask ?? "" }), { now: 0, oneLiner: false, detail: false })).toContain("TresPerTask=gres:gpu:0\n");
  });
});

describe("a GRES count of 0", () => {
  it("is echoed in TresPerNode and asks nothing (oracle 22.05: --gres=mic:0 is gres:mic:0, --gres=gpu:0 gres:gpu:0)", () => {
    expect(info({ gresPerNode: [{ name: "mic", type: "", count: 0 }] }).tresPerNode).toBe("gres/mic:0");
    const g = info({ gresPerNode: [{ name: "gpu", type: "", count: 0 }] });
    expect([g.tresPerNode, g.tresReq.includes("gres/")]).toEqual(["gres/gpu:0", false]);
  });
});

describe("--ntasks-per-gpu in the record", () => {
  it("is kept and shown as NtasksPerTRES after the mail line (oracle 22.05)", () => {
    const i = info({ partition: "gpu", gpusPerNode: "4", ntasksPerGpu: 1, mailType: "END" });
    expect(i.ntasksPerTres).toBe(1);
    const lines = formatJobRecord(makeJob({ jobId: 11, ntasksPerTres: 1, mailType: "END", mailUser: "root" }), { now: 0, oneLiner: false, detail: false }).split("\n").map((l) => l.trim());
    expect(lines.indexOf("NtasksPerTRES=1")).toBe(lines.indexOf("MailUser=root MailType=END") + 1);
  });
});

describe("--gpus-per-socket in the record", () => {
  const show = (tresPerSocket: string, tresPerTask = ""): string =>
    formatJobRecord(makeJob({ jobId: 12, tresPerSocket, tresPerTask }), { now: 0, oneLiner: false, detail: false });
  const column = (key: string, over: { tresPerSocket?: string; tresPerTask?: string }): string | undefined =>
    NAME_ONLY_FIELDS.find((c) => c.key === key)?.get({ job: makeJob({ jobId: 13, ...over }), now: 0, cluster: "c" }, 20);

  it("is kept as asked, a count of 0 or a type alone too (oracle 22.05: TresPerSocket=gres:gpu:0, gres:gpu:mi300x; differential seed 9983)", () => {
    expect(info({ gpusPerSocket: "0" }).tresPerSocket).toBe("gres/gpu:0");
    expect(info({ gpusPerSocket: "mi300x", socketsPerNode: 1 }).tresPerSocket).toBe("gres/gpu:mi300x");
    expect(info({}).tresPerSocket).toBeUndefined();
  });

  it("counts per socket x sockets x nodes in TRES, the larger with per task (oracle: -N2 --gpus-per-socket=2 --sockets-per-node=1 is gres/gpu=4)", () => {
    expect(info({ partition: "gpu", gpusPerSocket: "2", socketsPerNode: 1, nodesMin: 2, nodesMax: 2 }).tresReq).toMatch(/gres\/gpu=4$/);
    expect(info({ partition: "gpu", gpusPerSocket: "2", socketsPerNode: 1, ntasks: 2, gpusPerTask: "1" }).tresReq).toMatch(/gres\/gpu=2$/);
    expect(info({ gpusPerSocket: "0" }).tresReq).not.toMatch(/gres/);
  });

  it("is shown between TresPerNode and TresPerTask, and in squeue's TRES_PER_SOCKET", () => {
    expect(show("gres/gpu:2", "gres/gpu=1")).toMatch(/TresPerSocket=gres:gpu:2\n\s*TresPerTask=gres:gpu:1\n/);
    expect(show("")).not.toContain("TresPerSocket");
    expect(column("tres-per-socket", { tresPerSocket: "gres/gpu:mi300x:2" })).toBe("gres:gpu:mi300x:2");
    expect(column("tres-per-socket", {})).toBe("N/A");
  });

  it("squeue's TRES_PER_TASK shows the GRES alone, as scontrol (oracle: -n2 -c2 --gpus-per-task=1 is gres:gpu:1, -c2 N/A)", () => {
    expect(column("tres-per-task", { tresPerTask: "cpu=2,gres/gpu=1" })).toBe("gres:gpu:1");
    expect(column("tres-per-task", { tresPerTask: "cpu=2" })).toBe("N/A");
  });
});
