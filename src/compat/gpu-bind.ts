/**
 * @module compat/gpu-bind
 * Which of a step's GPUs on a node each task sees, as Slurm's --gpu-bind sets
 * it: none (all of them), per_task:N (N distinct GPUs per task, in order),
 * single:N (tasks share one GPU N at a time), map_gpu:ids, mask_gpu:masks, and
 * closest (all of them here: tasks are not bound to CPUs yet). --gpus-per-task=N
 * implies per_task:N unless --gpu-bind says otherwise. Pure.
 */
import { err, ok, type Result } from "../lib/result.ts";

/** Slurm's exit(-1) for a bad option value. */
const OPTION_EXIT = 255;

/** The binding kinds, matched as prefixes of the value without case, as 22.05 matches them. */
const KINDS = ["closest", "none", "per_task:", "single:", "map_gpu:", "mask_gpu:"] as const;

/** Characters a map_gpu / mask_gpu list may hold (oracle: map_gpu:0x1f fails at x, mask_gpu:AB passes, 0X3 fails at X). */
const LIST_CHARS: Readonly<Record<string, RegExp>> = { "map_gpu:": /[^0-9*]/, "mask_gpu:": /[^0-9a-fA-Fx*]/ };

/**
 * Checks a --gpu-bind value as Slurm 22.05 does and returns it as given (the job keeps it so:
 * TresBind=gpu:verbose,closest, SLURM_TRES_BIND=gres/gpu:verbose,closest). The value is read as
 * the TRES binding "gpu:<value>", split at ";" into "gpu:<bind>" parts; each bind may start with
 * "verbose," and must then start with a kind. What follows per_task:/single: is read as a number
 * that may not be negative (0abc is 0); each comma item of map_gpu:/mask_gpu: is checked character
 * by character, the first bad one named. The refusal names "gpu:<value>", exit 255 (oracle: the
 * 2026-12-05 probes in tests/unit/gpu/gpu-bind.test.ts, differential seeds 150, 255, 7176).
 */
export function parseGpuBind(text: string): Result<string> {
  const refused = (before: string[] = []) => err("BadGpuBind", [...before, `Invalid --gpu-bind argument: gpu:${text}`].join("\n"), OPTION_EXIT);
  for (const part of `gpu:${text}`.split(";").filter((p) => p !== "")) {
    const colon = part.indexOf(":");
    if (colon < 0 || part.slice(0, colon) !== "gpu") return refused();
    const bind = part.slice(colon + 1).replace(/^verbose,/i, "");
    const kind = KINDS.find((k) => bind.toLowerCase().startsWith(k));
    if (kind === undefined) return refused();
    const rest = bind.slice(kind.length);
    if ((kind === "per_task:" || kind === "single:") && /^\s*-0*[1-9]/.test(rest)) return refused();
    const bad = LIST_CHARS[kind];
    if (bad === undefined) continue;
    for (const item of rest.split(",")) {
      const at = bad.exec(item);
      if (at !== null) return refused([`Failed to validate ${item}, offending character is ${at[0]}`]);
    }
  }
  return ok(text);
}

/** A kept --gpu-bind value as taskGpus reads it: the first part's bind, without "verbose,", lower-cased. */
export function gpuBindKind(bind: string): string {
  return (bind.split(";")[0] ?? "").replace(/^verbose,/i, "").toLowerCase();
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
  const spec = (bind || "") === "" && gpusPerTask > 0 ? `per_task:${gpusPerTask}` : gpuBindKind(bind || "");
  const [kind = "", arg = ""] = spec.split(":");
  switch (kind) {
    case "per_task": {
      const n = countOf(arg);
      return Array.from({ length: Math.min(n, gpus.length) }, (_, i) => gpus[(localId * n + i) % gpus.length]!);
    }
    case "single":
      return [gpus[Math.floor(localId / countOf(arg)) % gpus.length]!];
    case "map_gpu":
      return [idFrom(listItem(arg, localId))];
    case "mask_gpu":
      return maskBits(listItem(arg, localId));
    default:
      return gpus;
  }
}

/** per_task:/single:'s number as Slurm reads it (leading digits: "2,verbose" is 2), at least 1. */
const countOf = (arg: string): number => Math.max(1, Number(/^\s*\+?\d+/.exec(arg)?.[0] ?? 0));

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
