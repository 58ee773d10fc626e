/**
 * The C server module of `srun --mpi=pmix` (agent/pmix/shim-source.ts, compiled by Bun's TinyCC)
 * and the FFI layer around libpmix (agent/pmix/libpmix.ts), driven from JavaScript the way libpmix
 * drives them: a fence call copies its data into an event on the pipe and returns PMIX_SUCCESS,
 * spur_fence_done hands the collected data to libpmix's callback with a release function; connect
 * and finalize are answered at once (PMIX_OPERATION_SUCCEEDED); an abort keeps its message. Needs
 * libpmix.so.2 (CI installs it with Open MPI); skipped where the library cannot be loaded.
 */
import { afterAll, describe, expect, it } from "vitest";
import { CFunction, JSCallback, ptr, read, type Pointer } from "bun:ffi";
import { readSync } from "node:fs";
import { EVENT_KIND, Keep, compileShim, infoArray, loadLibpmix, pmixMajor, procStruct, readEvent } from "../../../src/agent/pmix/libpmix.ts";

const loaded = loadLibpmix(process.env);
const PMIX_SUCCESS = 0;
const PMIX_OPERATION_SUCCEEDED = -157;

describe.runIf(loaded.ok)("PMIx server module (TinyCC shim) and libpmix layer", () => {
  const shim = compileShim();
  const fd = shim.spur_open();
  const table = shim.spur_module_table() as Pointer;
  const slot = (i: number) => read.ptr(table, i * 8) as Pointer;
  const keep = new Keep();
  const callbacks: JSCallback[] = [];
  afterAll(() => callbacks.forEach((c) => c.close()));

  /** The next event address the shim wrote on its pipe (the test runs on one thread: it is there already). */
  const nextEvent = (): Pointer => {
    const b = Buffer.alloc(8);
    expect(readSync(fd, b, 0, 8, null)).toBe(8);
    return Number(b.readBigUInt64LE(0)) as Pointer;
  };

  it("reads the library's version", () => {
    expect(loaded.ok && pmixMajor(loaded.version)).toBeGreaterThanOrEqual(3);
    expect(pmixMajor("OpenPMIx 4.2.2rc2 (PMIx Standard: 4.2, ...)")).toBe(4);
  });

  it("a fence: the data is copied into an event; spur_fence_done gives libpmix's callback every node's data and a release function", () => {
    const fence = CFunction({ ptr: slot(3), args: ["ptr", "usize", "ptr", "usize", "ptr", "usize", "ptr", "ptr"], returns: "i32" });
    let got: { status: number; text: string; cbdata: number; release: number } | undefined;
    const modexCb = new JSCallback((status: number, data: Pointer, n: number, cbdata: Pointer, release: Pointer) => {
      got = { status, text: Number(data) === 0 ? "" : Buffer.from(toBytes(data, Number(n))).toString(), cbdata: Number(cbdata), release: Number(release) };
    }, { args: ["i32", "ptr", "usize", "ptr", "ptr", "ptr"], returns: "void" });
    callbacks.push(modexCb);
    const proc = procStruct(keep, "slurm.pmix.7.0", 0xfffffffe);
    const mine = Buffer.from("node-one-data");
    expect(fence(proc, 1, null, 0, ptr(mine), mine.length, modexCb.ptr, 42 as unknown as Pointer)).toBe(PMIX_SUCCESS);
    mine.fill(0); // libpmix may reuse its buffer: the event has its own copy
    const ev = readEvent(nextEvent());
    expect([ev.kind, ev.rank, ev.nprocs, ev.text, Buffer.from(ev.data).toString()]).toEqual([EVENT_KIND.fence, 0xfffffffe, 1, "slurm.pmix.7.0", "node-one-data"]);
    const all = Buffer.from("node-one-data|node-two-data");
    shim.spur_fence_done(ev.pointer, PMIX_SUCCESS, ptr(all), all.length);
    expect(got).toMatchObject({ status: PMIX_SUCCESS, text: "node-one-data|node-two-data", cbdata: 42 });
    expect(got?.release).not.toBe(0);
  });

  it("connect and finalize are answered at once; an abort keeps its status and message", () => {
    const op = (i: number) => CFunction({ ptr: slot(i), args: ["ptr", "ptr", "ptr", "ptr"], returns: "i32" });
    expect(op(0)(procStruct(keep, "slurm.pmix.7.0", 3), null, null, null)).toBe(PMIX_OPERATION_SUCCEEDED);
    expect([readEvent(nextEvent())].map((e) => [e.kind, e.rank])).toEqual([[EVENT_KIND.connected, 3]]);
    expect(op(1)(procStruct(keep, "slurm.pmix.7.0", 3), null, null, null)).toBe(PMIX_OPERATION_SUCCEEDED);
    const fin = readEvent(nextEvent());
    expect([fin.kind, fin.rank]).toEqual([EVENT_KIND.finalized, 3]);
    shim.spur_event_free(fin.pointer);
    const abort = CFunction({ ptr: slot(2), args: ["ptr", "ptr", "i32", "ptr", "ptr", "usize", "ptr", "ptr"], returns: "i32" });
    expect(abort(procStruct(keep, "slurm.pmix.7.0", 1), null, 7, keep.cstr("rank 1 gave up"), null, 0, null, null)).toBe(PMIX_SUCCESS);
    const ev = readEvent(nextEvent());
    expect([ev.kind, ev.rank, ev.status, ev.text]).toEqual([EVENT_KIND.abort, 1, 7, "rank 1 gave up"]);
    shim.spur_event_free(ev.pointer);
  });

  it("builds pmix_info_t arrays through the library, nested arrays included", () => {
    if (!loaded.ok) return;
    const built = infoArray(keep, loaded.lib, [
      { key: "pmix.job.size", value: { type: "uint32", value: 8 } },
      { key: "pmix.pdata", value: { type: "info", value: [{ key: "pmix.rank", value: { type: "rank", value: 0 } }, { key: "pmix.hname", value: { type: "string", value: "n1" } }] } },
    ]);
    expect(built.count).toBe(2);
    // pmix_info_t: a 512-byte key, flags, then the value (type first)
    expect(Buffer.from(new Uint8Array(toBytes(built.array as Pointer, 13))).toString()).toBe("pmix.job.size");
    expect(read.u16(built.array as Pointer, 520)).toBe(14); // PMIX_UINT32
    expect(read.u16(built.array as Pointer, 552 + 520)).toBe(39); // PMIX_DATA_ARRAY
  });
});

function toBytes(p: Pointer, n: number): number[] {
  return Array.from({ length: n }, (_, i) => read.u8(p, i));
}
