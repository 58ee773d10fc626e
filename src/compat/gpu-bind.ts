/**
 * @module compat/gpu-bind
 * Which of a step's GPUs on a node each task sees, as Slurm's --gpu-bind sets
 * it: none (all of them), per_task:N (N distinct GPUs per task, in order),
 * single:N (tasks share one GPU N at a time), map_gpu:ids, mask_gpu:masks, and
 * closest (all of them here: tasks are not bound to CPUs yet). --gpus-per-task=N
 * implies per_task:N unless --gpu-bind says otherwise. Pure.
 */
import { err, ok, type Result } from "../lib/result.ts";

const BIND_RE = /^(none|closest|per_task:[0-9]+|single:[0-9]+|map_gpu:[0-9a-fx,*]+|mask_gpu:[0-9a-fx,*]+)$/i;

/** Checks a --gpu-bind value; returns it without the "verbose," prefix. */
export function parseGpuBind(text: string): Result<string> {
  const body = text.replace(/^verbose,/i, "");
  if (!BIND_RE.test(body) || /^(per_task|single):0+$/i.test(body)) return err("BadGpuBind", `Invalid --gpu-bind argument: ${text}`);
  return ok(body);
}

/**
 * Checks a --tres-bind value (Slurm 23.x+): `<tres>:[verbose,]<type>` parts joined by "+", where
 * only gres/gpu binds (as Slurm's tres_bind_verify_cmdline); returns the gres/gpu part as a
 * --gpu-bind value, which is what --gpu-bind=<type> abbreviates.
 */
export function parseTresBind(text: string): Result<string> {
  const refused = err("BadTresBind", `Invalid --tres-bind argument: ${text}`);
  let gpu: string | undefined;
  for (const part of text.split("+")) {
    const colon = part.indexOf(":");
    if (colon < 0 || part.slice(0, colon) !== "gres/gpu") return refused;
    const bind = parseGpuBind(part.slice(colon + 1));
    if (!bind.ok) return refused;
    gpu = bind.value;
  }
  return gpu === undefined ? refused : ok(gpu);
}

/** The GPUs (global indices) of task `localId` on a node whose step GPUs are `nodeGpus`. */
export function taskGpus(nodeGpus: readonly number[], localId: number, bind: string, gpusPerTask: number): number[] {
  const gpus = [...nodeGpus].sort((a, b) => a - b);
  if (gpus.length === 0) return [];
  const spec = (bind || "") === "" && gpusPerTask > 0 ? `per_task:${gpusPerTask}` : (bind || "").toLowerCase();
  const [kind, arg = ""] = spec.split(":");
  switch (kind) {
    case "per_task": {
      const n = Math.max(1, Number(arg));
      return Array.from({ length: Math.min(n, gpus.length) }, (_, i) => gpus[(localId * n + i) % gpus.length]!);
    }
    case "single":
      return [gpus[Math.floor(localId / Math.max(1, Number(arg))) % gpus.length]!];
    case "map_gpu":
      return [idFrom(listItem(arg, localId))];
    case "mask_gpu":
      return maskBits(listItem(arg, localId));
    default:
      return gpus;
  }
}

/** Item `i` of a comma list, reused cyclically; "2*3" repeats 2 three times. */
function listItem(list: string, i: number): string {
  const items = list.split(",").flatMap((item) => {
    const [v = "", times = "1"] = item.split("*");
    return Array.from({ length: Math.max(1, Number(times) || 1) }, () => v);
  });
  return items[i % items.length] ?? "0";
}

const idFrom = (text: string): number => (text.toLowerCase().startsWith("0x") ? Number.parseInt(text, 16) : Number(text));

function maskBits(text: string): number[] {
  const mask = text.toLowerCase().startsWith("0x") ? Number.parseInt(text, 16) : Number(text);
  const out: number[] = [];
  for (let bit = 0; bit < 64 && 2 ** bit <= mask; bit++) if (Math.floor(mask / 2 ** bit) % 2 === 1) out.push(bit);
  return out;
}
