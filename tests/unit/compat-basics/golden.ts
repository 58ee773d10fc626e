/**
 * @module golden
 * Reads the stdout block of a recorded Slurm 22.05 golden file
 * (shared/oracle/golden/NNN-name.txt) byte-exactly, for compat-basics tests.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { GOLDEN_DIR_PATH } from "../../shared-dir.ts";

/** Folder of the golden files: <project>/../shared/oracle/golden. */
export const GOLDEN_DIR = `${GOLDEN_DIR_PATH}/`;

/**
 * Whether the goldens are here. A developer without ../shared skips the golden blocks, but CI
 * (CI=true, where .ci/run always has ../shared) must never skip them silently: there, a
 * missing folder fails the run instead of passing it with the checks left out.
 */
export const haveGoldens = existsSync(GOLDEN_DIR);
if (!haveGoldens && process.env.CI === "true") {
  throw new Error(`CI: the Slurm goldens are missing at ${GOLDEN_DIR} (set SPUR_SHARED_DIR); refusing to skip their checks`);
}

/** The exact stdout bytes (as UTF-8 text) of the golden whose name starts with `num`. */
export function goldenStdout(num: string): string {
  const file = readdirSync(GOLDEN_DIR).find((f) => f.startsWith(`${num}-`));
  if (!file) throw new Error(`no golden ${num}`);
  const buf = readFileSync(GOLDEN_DIR + file);
  const text = buf.toString("latin1");
  const m = /### stdout \((\d+) bytes\):\n/.exec(text);
  if (!m) throw new Error(`golden ${num} has no stdout block`);
  const start = m.index + m[0].length;
  return buf.subarray(start, start + Number(m[1])).toString("utf8");
}

/** Stdout lines (no trailing empty line). */
export const goldenLines = (num: string): string[] => goldenStdout(num).replace(/\n$/, "").split("\n");

/** `Key=value` pairs of an scontrol-style text (values up to the next space). */
export function keyValues(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const m of text.matchAll(/(?:^|\s)([A-Za-z/:]+)=(\S*)/g)) {
    const k = m[1] as string;
    out.set(k, [...(out.get(k) ?? []), m[2] as string]);
  }
  return out;
}
