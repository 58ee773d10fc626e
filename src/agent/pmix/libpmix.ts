/**
 * @module agent/pmix/libpmix
 * The system's PMIx library through bun:ffi: found at run time (SPUR_PMIX_LIBRARY, else the
 * dynamic loader's search for libpmix.so.2, else the usual install paths), never linked; the
 * server module is the C shim of shim-source.ts compiled by Bun's TinyCC. Also the one place that
 * knows PMIx 4's memory layouts (pmix_proc_t, pmix_data_array_t, the shim's event), and turns
 * compat/pmix/job-info.ts entries into pmix_info_t arrays with PMIx_Info_list_*, so that the
 * library itself lays out every pmix_value_t. Failure policy: a missing library is a typed answer
 * (`{ ok: false, reason }`), never a throw; a failed call throws with PMIx's own error string.
 */
import { cc, dlopen, read, ptr, CString, toArrayBuffer, type Pointer } from "bun:ffi";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PmixEntry } from "../../compat/pmix/job-info.ts";
import { SHIM_SOURCE } from "./shim-source.ts";

/** Where libpmix.so.2 is looked for after SPUR_PMIX_LIBRARY and the loader's own search. */
const LIBRARY_PATHS = [
  "libpmix.so.2",
  "/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so.2",
  "/usr/lib/aarch64-linux-gnu/pmix2/lib/libpmix.so.2",
  "/usr/lib64/libpmix.so.2",
  "/usr/lib64/pmix/lib/libpmix.so.2",
  "/usr/local/lib/libpmix.so.2",
  "/opt/pmix/lib/libpmix.so.2",
];

const SYMBOLS = {
  PMIx_Get_version: { args: [], returns: "cstring" },
  PMIx_Error_string: { args: ["i32"], returns: "cstring" },
  PMIx_server_init: { args: ["ptr", "ptr", "usize"], returns: "i32" },
  PMIx_server_finalize: { args: [], returns: "i32" },
  PMIx_server_register_nspace: { args: ["ptr", "i32", "ptr", "usize", "ptr", "ptr"], returns: "i32" },
  PMIx_server_register_client: { args: ["ptr", "u32", "u32", "ptr", "ptr", "ptr"], returns: "i32" },
  PMIx_server_setup_fork: { args: ["ptr", "ptr"], returns: "i32" },
  PMIx_generate_regex: { args: ["ptr", "ptr"], returns: "i32" },
  PMIx_generate_ppn: { args: ["ptr", "ptr"], returns: "i32" },
  PMIx_Info_list_start: { args: [], returns: "ptr" },
  PMIx_Info_list_add: { args: ["ptr", "ptr", "ptr", "u16"], returns: "i32" },
  PMIx_Info_list_convert: { args: ["ptr", "ptr"], returns: "i32" },
  PMIx_Info_list_release: { args: ["ptr"], returns: "void" },
} as const;

type Lib = ReturnType<typeof dlopen<typeof SYMBOLS>>;
export type LoadResult = { ok: true; lib: Lib; path: string; version: string } | { ok: false; reason: string };

/** Open libpmix (the first that loads), or say why none did in the loader's words. */
export function loadLibpmix(env: Readonly<Record<string, string | undefined>>): LoadResult {
  const override = env.SPUR_PMIX_LIBRARY ?? "";
  const paths = override !== "" ? [override] : LIBRARY_PATHS;
  let first = "";
  for (const path of paths) {
    try {
      const lib = dlopen(path, SYMBOLS);
      return { ok: true, lib, path, version: String(lib.symbols.PMIx_Get_version()) };
    } catch (e) {
      if (first === "") first = (e as Error).message.replace(/^Failed to open library "[^"]*": /, "");
    }
  }
  return { ok: false, reason: `plugin_load_from_file: dlopen(${paths[0]}): ${first}` };
}

/** The major version in PMIx_Get_version's text ("OpenPMIx 4.2.2rc2 (...)" → 4), 0 when unreadable. */
export function pmixMajor(version: string): number {
  return Number(/(\d+)\.\d+/.exec(version)?.[1] ?? 0);
}

const shimSymbols = {
  spur_open: { args: [], returns: "i32" },
  spur_module_table: { args: [], returns: "ptr" },
  spur_fence_done: { args: ["ptr", "i32", "ptr", "usize"], returns: "void" },
  spur_event_free: { args: ["ptr"], returns: "void" },
} as const;

/** Compile the server module (shim-source.ts). TinyCC reads a file, so the source goes through a private temporary one. */
export function compileShim() {
  const dir = mkdtempSync(join(tmpdir(), "spur-pmix-shim-"));
  try {
    const file = join(dir, "shim.c");
    writeFileSync(file, SHIM_SOURCE, { mode: 0o600 });
    return cc({ source: file, symbols: shimSymbols }).symbols;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
export type Shim = ReturnType<typeof compileShim>;

/** PMIx 4 data type numbers (pmix_common.h) and sizes of the structures read or written here. */
const TYPE = { bool: 1, string: 3, uint16: 13, uint32: 14, info: 24, rank: 40, dataArray: 39 } as const;
export const PROC_BYTES = 260;
const PROC_RANK_OFFSET = 256;
const NSPACE_BYTES_MAX = 255;
const DATA_ARRAY_BYTES = 24;

/** Offsets of the shim's spur_event fields (x86_64 and aarch64 LP64). */
export const EVENT_OFFSETS = { kind: 0, rank: 4, status: 8, nprocs: 16, data: 24, ndata: 32, text: 56 } as const;
export const EVENT_KIND = { connected: 1, finalized: 2, abort: 3, fence: 4 } as const;

/** Memory handed to libpmix that must outlive the calls (register_nspace keeps no pointer to it, but list entries are copied lazily). */
export class Keep {
  private readonly held: Uint8Array[] = [];
  bytes(b: Uint8Array): Uint8Array {
    this.held.push(b);
    return b;
  }
  cstr(s: string): Uint8Array {
    return this.bytes(Buffer.from(`${s}\0`, "utf8"));
  }
}

export function procStruct(keep: Keep, nspace: string, rank: number): Uint8Array {
  const name = Buffer.from(nspace, "utf8");
  if (name.length > NSPACE_BYTES_MAX) throw new Error(`PMIx namespace too long: ${nspace}`);
  const p = keep.bytes(new Uint8Array(PROC_BYTES));
  p.set(name);
  new DataView(p.buffer).setUint32(PROC_RANK_OFFSET, rank, true);
  return p;
}

function valueBytes(keep: Keep, lib: Lib, e: PmixEntry): Uint8Array {
  const v = e.value;
  const n = (bytes: number, set: (d: DataView) => void): Uint8Array => {
    const b = keep.bytes(new Uint8Array(bytes));
    set(new DataView(b.buffer));
    return b;
  };
  switch (v.type) {
    case "string": return keep.cstr(v.value);
    case "uint32": case "rank": return n(4, (d) => d.setUint32(0, v.value, true));
    case "uint16": return n(2, (d) => d.setUint16(0, v.value, true));
    case "bool": return n(1, (d) => d.setUint8(0, v.value ? 1 : 0));
    case "info": {
      const inner = infoArray(keep, lib, v.value);
      return n(DATA_ARRAY_BYTES, (d) => {
        d.setUint16(0, TYPE.info, true);
        d.setBigUint64(8, BigInt(inner.count), true);
        d.setBigUint64(16, BigInt(inner.array ?? 0), true);
      });
    }
  }
}

/** A pmix_info_t array (owned by libpmix's allocator, never freed: one per step server) built from `entries`. */
export function infoArray(keep: Keep, lib: Lib, entries: readonly PmixEntry[]): { array: Pointer | null; count: number } {
  const s = lib.symbols;
  const list = s.PMIx_Info_list_start();
  if (list === null) throw new Error("PMIx_Info_list_start failed");
  try {
    for (const e of entries) {
      const type = e.value.type === "info" ? TYPE.dataArray : TYPE[e.value.type];
      const rc = s.PMIx_Info_list_add(list, keep.cstr(e.key), valueBytes(keep, lib, e), type);
      if (rc !== 0) throw new Error(`PMIx_Info_list_add(${e.key}): ${String(s.PMIx_Error_string(rc))}`);
    }
    const out = keep.bytes(new Uint8Array(DATA_ARRAY_BYTES));
    const rc = s.PMIx_Info_list_convert(list, out);
    if (rc !== 0) throw new Error(`PMIx_Info_list_convert: ${String(s.PMIx_Error_string(rc))}`);
    const d = new DataView(out.buffer);
    const count = Number(d.getBigUint64(8, true));
    if (count !== entries.length) throw new Error(`PMIx info list holds ${count} of ${entries.length} entries`);
    return { array: Number(d.getBigUint64(16, true)) as Pointer, count };
  } finally {
    s.PMIx_Info_list_release(list);
  }
}

/** A C string libpmix returned through a `char **` slot. */
export function slotString(slot: BigUint64Array): string {
  const p = Number(slot[0] ?? 0n);
  return p === 0 ? "" : new CString(p as Pointer).toString();
}

/** The NULL-terminated `char **` environment PMIx_server_setup_fork filled, as a record. */
export function envArray(slot: BigUint64Array): Record<string, string> {
  const base = Number(slot[0] ?? 0n) as Pointer;
  const env: Record<string, string> = {};
  if (Number(base) === 0) return env;
  for (let i = 0; i < 4096; i++) {
    const p = read.ptr(base, i * 8);
    if (p === 0) break;
    const text = new CString(p as Pointer).toString();
    const eq = text.indexOf("=");
    if (eq > 0) env[text.slice(0, eq)] = text.slice(eq + 1);
  }
  return env;
}

export interface ShimEvent {
  pointer: Pointer;
  kind: number;
  rank: number;
  status: number;
  nprocs: number;
  text: string;
  data: Uint8Array;
}

/** Read an event the shim posted (the memory stays the shim's until spur_fence_done / spur_event_free). */
export function readEvent(p: Pointer): ShimEvent {
  const o = EVENT_OFFSETS;
  const ndata = Number(read.u64(p, o.ndata));
  const dataPtr = read.ptr(p, o.data);
  const data = ndata > 0 && dataPtr !== 0 ? new Uint8Array(toArrayBuffer(dataPtr as Pointer, 0, ndata)).slice() : new Uint8Array(0);
  return {
    pointer: p, kind: read.i32(p, o.kind), rank: read.u32(p, o.rank), status: read.i32(p, o.status),
    nprocs: Number(read.u64(p, o.nprocs)), text: new CString((Number(p) + o.text) as Pointer).toString(), data,
  };
}

export { ptr };
