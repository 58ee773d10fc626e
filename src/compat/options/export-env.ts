/**
 * @module compat/options/export-env
 * Which of the invoker's environment variables a job receives (--export / SBATCH_EXPORT):
 * ALL (default) = everything; NONE = only SLURM_* (Slurm then loads the user's login
 * environment on the node, as with --get-user-env); NIL = only SLURM_*, nothing loaded;
 * a list VAR or VAR=value (with ALL: added to everything; without: to the SLURM_* ones), the
 * login environment loaded under it either way.
 */

export interface ExportedEnv {
  env: Record<string, string>;
  /** Slurm loads the user's login environment on the node: NONE or any list, ALL in it or not (oracle: ALL,FOO=1 sets SLURM_GET_USER_ENV=1). */
  getUserEnv: boolean;
}

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

function pick(env: Readonly<Record<string, string | undefined>>, all: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && (all || k.startsWith("SLURM_"))) out[k] = v;
  }
  return out;
}

/**
 * Split an --export list on commas. A piece that is neither NAME nor NAME=... continues the
 * previous value, so --export=PATH=/a,/b keeps "/a,/b" together.
 */
export function splitExportList(text: string): string[] {
  const items: string[] = [];
  for (const piece of text.split(",")) {
    const name = piece.includes("=") ? piece.slice(0, piece.indexOf("=")) : piece;
    const last = items.length - 1;
    if (!NAME_RE.test(name) && last >= 0 && (items[last] as string).includes("=")) items[last] += `,${piece}`;
    else if (piece !== "") items.push(piece);
  }
  return items;
}

/** The environment a job gets under `value` (undefined = no --export given = ALL). */
export function exportEnvironment(
  value: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ExportedEnv {
  const upper = value?.toUpperCase();
  if (value === undefined || upper === "ALL") return { env: pick(env, true), getUserEnv: false };
  if (upper === "NONE") return { env: pick(env, false), getUserEnv: true };
  if (upper === "NIL") return { env: pick(env, false), getUserEnv: false };
  const items = splitExportList(value);
  const all = items.some((i) => i.toUpperCase() === "ALL");
  const out = pick(env, all);
  for (const item of items) {
    const eq = item.indexOf("=");
    if (eq >= 0) out[item.slice(0, eq)] = item.slice(eq + 1);
    else if (!["ALL", "NONE", "NIL"].includes(item.toUpperCase())) {
      const v = env[item];
      if (v !== undefined) out[item] = v;
    }
  }
  return { env: out, getUserEnv: true };
}

/**
 * The environment srun's tasks start from: everything without --export; else as for a job,
 * except that a list naming NONE keeps only the SLURM_* variables (srun 22.05 drops the
 * rest of such a list: `--export=NONE,BAR=1` leaves BAR unset on the oracle).
 */
export function srunTaskEnvironment(value: string | undefined, env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const items = value === undefined ? [] : splitExportList(value).map((i) => i.toUpperCase());
  if (items.includes("NONE") && items.length > 1) return pick(env, false);
  return exportEnvironment(value, env).env;
}
