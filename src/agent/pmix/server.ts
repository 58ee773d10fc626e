/**
 * @module agent/pmix/server
 * One node's PMIx server for one step, run by `spur pmix-server` as the job's user (so that the
 * files libpmix shares with its clients are the user's, as under Slurm's stepd): initialise the
 * library with the C server module (shim-source.ts), register the step's namespace and each
 * local task, hand back each task's environment (PMIx_server_setup_fork), then turn the module's
 * events into protocol lines: a fence goes to spurd, which carries it across the nodes through
 * srun (as PMI-2 fences go) and answers with every node's data; an abort is reported. Failure
 * policy: anything that stops the server before the tasks start is one `failed` line (the tasks
 * are not started); a fence spurd cannot complete finishes with PMIX_ERROR in every local task.
 */
import { createReadStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pointer } from "bun:ffi";
import { namespaceInfo, nodeListText, ppnText, stepProblem, type PmixStep } from "../../compat/pmix/job-info.ts";
import { EVENT_KIND, Keep, compileShim, envArray, infoArray, loadLibpmix, procStruct, ptr, readEvent, slotString, type Shim } from "./libpmix.ts";
import type { FenceAnswer, ServerLine, ServerStart } from "./protocol.ts";

const PMIX_SUCCESS = 0;
const PMIX_ERROR = -1;
const PMIX_OPERATION_SUCCEEDED = -157;
const PMIX_ERR_NOT_SUPPORTED = -47;
const PMIX_RANK_WILDCARD = 0xfffffffe;
/** Bytes of one event address on the shim's pipe. */
const POINTER_BYTES = 8;

export interface RunningServer {
  answer(a: FenceAnswer): void;
  stop(): void;
}

type Lib = Extract<ReturnType<typeof loadLibpmix>, { ok: true }>["lib"];

/** Start the server for `start`; `send` writes protocol lines. Returns undefined after a `failed` line. */
export function startPmixServer(start: ServerStart, env: Readonly<Record<string, string | undefined>>, send: (l: ServerLine) => void): RunningServer | undefined {
  const problem = stepProblem({ ...start.step, tmpDir: "" });
  if (problem !== "") return fail(send, problem);
  const loaded = loadLibpmix(env);
  if (!loaded.ok) return fail(send, loaded.reason);
  const lib = loaded.lib;
  const tmpDir = mkdtempSync(join(env.TMPDIR || tmpdir(), `spur-pmix.${start.step.nspace.replace(/^slurm\.pmix\./, "")}.`));
  const step: PmixStep = { ...start.step, tmpDir };
  const keep = new Keep();
  let shim: Shim;
  let envs: Record<string, Record<string, string>>;
  try {
    shim = compileShim();
    envs = serve(lib, shim, keep, step, start);
  } catch (e) {
    rmSync(tmpDir, { recursive: true, force: true });
    return fail(send, (e as Error).message);
  }
  const size = step.ranksOfNode.reduce((n, r) => n + r.length, 0);
  const fences = new Map<number, Pointer>();
  let fenceIds = 0;
  const onEvent = (p: Pointer): void => {
    const ev = readEvent(p);
    if (ev.kind === EVENT_KIND.fence) {
      // every fence is carried as the whole step's round (as Open MPI's are): one over part of it would
      // pair with other nodes' rounds wrongly, so it fails here, plainly, instead of hanging or mixing data
      const whole = ev.text === step.nspace && ((ev.nprocs === 1 && ev.rank === PMIX_RANK_WILDCARD) || ev.nprocs === size);
      if (!whole) {
        process.stderr.write(`spur pmix-server: a PMIx fence over ${ev.nprocs} process(es) of ${ev.text} is not supported (only the whole step's)\n`);
        shim.spur_fence_done(p, PMIX_ERR_NOT_SUPPORTED, null, 0);
        return;
      }
      const id = fenceIds++;
      fences.set(id, p);
      send({ fence: id, data: Buffer.from(ev.data).toString("base64"), nprocs: ev.nprocs });
      return;
    }
    shim.spur_event_free(p);
    if (ev.kind === EVENT_KIND.abort) send({ abort: ev.rank, status: ev.status, message: ev.text });
    else if (ev.kind === EVENT_KIND.finalized) send({ finalized: ev.rank });
  };
  const events = readEvents(shim.spur_open(), onEvent);
  send({ ready: envs });
  return {
    answer(a) {
      const p = fences.get(a.fence);
      if (p === undefined) return;
      fences.delete(a.fence);
      const data = a.ok ? Buffer.concat(a.blobs.map((b) => Buffer.from(b, "base64"))) : Buffer.alloc(0);
      shim.spur_fence_done(p, a.ok ? PMIX_SUCCESS : PMIX_ERROR, data.length > 0 ? ptr(data) : null, data.length);
    },
    stop() {
      events.destroy();
      // fences still open: their tasks are going away; answer them so libpmix can release them
      for (const p of fences.values()) shim.spur_fence_done(p, PMIX_ERROR, null, 0);
      fences.clear();
      lib.symbols.PMIx_server_finalize();
      rmSync(tmpDir, { recursive: true, force: true });
    },
  };
}

function fail(send: (l: ServerLine) => void, why: string): undefined {
  send({ failed: why });
  return undefined;
}

const check = (lib: Lib, what: string, rc: number): void => {
  if (rc !== PMIX_SUCCESS && rc !== PMIX_OPERATION_SUCCEEDED) throw new Error(`${what} failed: ${String(lib.symbols.PMIx_Error_string(rc))}`);
};

/** Initialise, register the namespace and the local clients; every local rank's environment. */
function serve(lib: Lib, shim: Shim, keep: Keep, step: PmixStep, start: ServerStart): Record<string, Record<string, string>> {
  const s = lib.symbols;
  const init = infoArray(keep, lib, [
    { key: "pmix.srvr.tmpdir", value: { type: "string", value: step.tmpDir } },
    { key: "pmix.sys.tmpdir", value: { type: "string", value: step.tmpDir } },
    { key: "pmix.hname", value: { type: "string", value: step.nodes[step.nodeIndex] ?? "" } },
  ]);
  const module = shim.spur_module_table();
  if (module === null) throw new Error("the PMIx server module could not be built");
  check(lib, "PMIx_server_init", s.PMIx_server_init(module, init.array, init.count));
  const slot = new BigUint64Array(1);
  check(lib, "PMIx_generate_regex", s.PMIx_generate_regex(keep.cstr(nodeListText(step)), ptr(slot)));
  const nodeMap = slotString(slot);
  check(lib, "PMIx_generate_ppn", s.PMIx_generate_ppn(keep.cstr(ppnText(step)), ptr(slot)));
  const procMap = slotString(slot);
  const info = infoArray(keep, lib, namespaceInfo(step, { nodeMap, procMap }));
  const local = step.ranksOfNode[step.nodeIndex] ?? [];
  check(lib, "PMIx_server_register_nspace", s.PMIx_server_register_nspace(keep.cstr(step.nspace), local.length, info.array, info.count, null, null));
  const envs: Record<string, Record<string, string>> = {};
  for (const rank of local) {
    const proc = procStruct(keep, step.nspace, rank);
    check(lib, "PMIx_server_register_client", s.PMIx_server_register_client(proc, start.uid, start.gid, null, null, null));
    const envSlot = new BigUint64Array(1);
    check(lib, "PMIx_server_setup_fork", s.PMIx_server_setup_fork(proc, ptr(envSlot)));
    envs[String(rank)] = envArray(envSlot);
  }
  return envs;
}

/** Read event addresses from the shim's pipe, 8 bytes each, in order. */
function readEvents(fd: number, onEvent: (p: Pointer) => void): { destroy(): void } {
  if (fd < 0) throw new Error("the PMIx event pipe could not be opened");
  const stream = createReadStream("", { fd, autoClose: false });
  let pending = Buffer.alloc(0);
  stream.on("data", (chunk: Buffer | string) => {
    pending = Buffer.concat([pending, typeof chunk === "string" ? Buffer.from(chunk) : chunk]);
    let at = 0;
    for (; at + POINTER_BYTES <= pending.length; at += POINTER_BYTES) onEvent(Number(pending.readBigUInt64LE(at)) as Pointer);
    pending = pending.subarray(at);
  });
  return { destroy: () => stream.destroy() };
}
