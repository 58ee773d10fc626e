/**
 * Task CPU binding (Slurm's task/affinity) as a pure function: --cpu-bind
 * parsing, automatic binding, block/cyclic, -c, one thread per core, map/mask
 * lists, and the SLURM_CPU_BIND* variables.
 */
import { describe, expect, it } from "vitest";
import { bindTasks, bindVerboseLine, cpusToMask, maskToCpus, parseCpuBind, type BindInput } from "../../../src/agent/cgroup/bind.ts";

const input = (over: Partial<BindInput> = {}): BindInput => ({
  spec: undefined, jobCpus: [0, 1, 2, 3], cores: [], localTasks: 2, cpusPerTask: 1, oneThreadPerCore: false, cyclic: false, ...over,
});
const spec = (text: string) => {
  const p = parseCpuBind(text);
  if (!p.ok) throw new Error(p.message);
  return p.spec;
};

describe("parseCpuBind", () => {
  it("reads verbosity, type and lists", () => {
    expect(spec("")).toBeUndefined();
    expect(spec("verbose,cores")).toEqual({ verbose: true, type: "cores", lists: [] });
    expect(spec("q,none")).toEqual({ verbose: false, type: "none", lists: [] });
    expect(spec("map_cpu:3,1")).toEqual({ verbose: false, type: "map_cpu", lists: [[3], [1]] });
    expect(spec("verbose,mask_cpu:0x3,0xC")).toEqual({ verbose: true, type: "mask_cpu", lists: [[0, 1], [2, 3]] });
  });
  it("takes what srun takes: singular words, '=' before a list, rank_ldom, one_thread", () => {
    expect(spec("core")).toEqual({ verbose: false, type: "cores", lists: [] });
    expect(spec("v,socket")).toEqual({ verbose: true, type: "sockets", lists: [] });
    expect(spec("rank_ldom")).toEqual({ verbose: false, type: "ldoms", lists: [] });
    expect(spec("one_thread,threads")).toEqual({ verbose: false, type: "threads", lists: [] });
    expect(spec("map_cpu=0,,2")).toEqual({ verbose: false, type: "map_cpu", lists: [[0], [2]] });
    // a comma before hex digits to the end stays in the list (srun's pieces)
    expect(spec("mask_cpu:0x3,abc")).toEqual({ verbose: false, type: "mask_cpu", lists: [[0, 1], maskToCpus("abc")] });
  });
  it("rejects what it does not know", () => {
    expect(parseCpuBind("bogus")).toEqual({ ok: false, message: "Invalid --cpu-bind argument: bogus" });
    expect(parseCpuBind("mask_cpu:0xZ").ok).toBe(false);
  });
  it("converts masks both ways", () => {
    expect(maskToCpus("0x11")).toEqual([0, 4]);
    expect(cpusToMask([0, 1])).toBe("0x3");
    expect(cpusToMask([2, 3])).toBe("0xC");
    expect(cpusToMask([64])).toBe("0x10000000000000000");
  });
});

describe("bindTasks", () => {
  it("binds to cores by default when the tasks fit, with Slurm's variables", () => {
    const r = bindTasks(input());
    expect(r.perTask).toEqual([[0], [1]]);
    expect(r.env).toEqual({ SLURM_CPU_BIND: "quiet,mask_cpu:0x1,0x2", SLURM_CPU_BIND_LIST: "0x1,0x2", SLURM_CPU_BIND_TYPE: "mask_cpu:", SLURM_CPU_BIND_VERBOSE: "quiet" });
  });
  it("does not bind automatically when the tasks do not fit, nor with none", () => {
    expect(bindTasks(input({ localTasks: 5 })).perTask).toEqual([undefined, undefined, undefined, undefined, undefined]);
    const none = bindTasks(input({ spec: spec("none") }));
    expect(none.perTask).toEqual([undefined, undefined]);
    expect(none.env.SLURM_CPU_BIND).toBe("quiet,none");
  });
  it("gives -c CPUs per task, block or cyclic", () => {
    expect(bindTasks(input({ cpusPerTask: 2 })).perTask).toEqual([[0, 1], [2, 3]]);
    expect(bindTasks(input({ cpusPerTask: 2, cyclic: true })).perTask).toEqual([[0, 2], [1, 3]]);
  });
  it("binds whole cores, or one thread per core with nomultithread", () => {
    const smt = input({ jobCpus: [0, 1, 4, 5], cores: [[0, 4], [1, 5]], spec: spec("cores") });
    expect(bindTasks(smt).perTask).toEqual([[0, 4], [1, 5]]);
    expect(bindTasks({ ...smt, oneThreadPerCore: true }).perTask).toEqual([[0], [1]]);
    expect(bindTasks({ ...smt, spec: spec("threads") }).perTask).toEqual([[0], [1]]);
  });
  it("follows map_cpu and mask_cpu lists within the job's CPUs, and rank", () => {
    expect(bindTasks(input({ spec: spec("map_cpu:3,2") })).perTask).toEqual([[3], [2]]);
    expect(bindTasks(input({ spec: spec("mask_cpu:0xC,0x3") })).perTask).toEqual([[2, 3], [0, 1]]);
    expect(bindTasks(input({ spec: spec("map_cpu:9"), localTasks: 1 })).perTask).toEqual([[0, 1, 2, 3]]);
    expect(bindTasks(input({ spec: spec("rank"), localTasks: 3 })).perTask).toEqual([[0], [1], [2]]);
  });
  it("prints the verbose line", () => {
    expect(bindVerboseLine("n1", 3, 1, 4242, [2, 3])).toBe("cpu-bind=MASK - n1, task  3  1 [4242]: mask 0xC set\n");
  });
});

describe("bindTasks across sockets", () => {
  // Two sockets of four CPUs; the job holds two CPUs on each.
  const two = (over: Partial<BindInput> = {}) =>
    input({ jobCpus: [0, 1, 4, 5], sockets: [[0, 1, 2, 3], [4, 5, 6, 7]], localTasks: 4, ...over });

  it("deals tasks to the sockets in turn by default (Slurm's block:cyclic)", () => {
    expect(bindTasks(two({ spec: spec("cores") })).perTask).toEqual([[0], [4], [1], [5]]);
  });

  it("fills a socket first with -m *:block", () => {
    expect(bindTasks(two({ spec: spec("cores"), socketDist: "block" })).perTask).toEqual([[0], [1], [4], [5]]);
  });

  it("binds a task to every job CPU of its socket with --cpu-bind=sockets", () => {
    expect(bindTasks(two({ spec: spec("sockets"), localTasks: 2 })).perTask).toEqual([[0, 1], [4, 5]]);
  });

  it("keeps -c CPUs of a task on its socket", () => {
    expect(bindTasks(two({ spec: spec("cores"), localTasks: 2, cpusPerTask: 2 })).perTask).toEqual([[0, 1], [4, 5]]);
  });

  it("falls back to the one-socket layout when the job sits on one socket", () => {
    const one = bindTasks(input({ spec: spec("cores"), sockets: [[0, 1, 2, 3], [4, 5, 6, 7]] }));
    expect(one.perTask).toEqual(bindTasks(input({ spec: spec("cores") })).perTask);
  });
});
