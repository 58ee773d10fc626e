/**
 * @module tests/real-scripts/corpus
 * The real-scripts corpus (issue 15): public #SBATCH scripts under corpus/ (each names its
 * source repository and path in a header comment, with any site name neutralised) and
 * real client command lines in commands.txt (`[@tags] command ## source`). Pure loading.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface ScriptCase {
  kind: "script";
  /** File name under corpus/. */
  name: string;
  text: string;
  source: string;
}

export interface CommandCase {
  kind: "command";
  /** "c<line number>". */
  name: string;
  cmd: string;
  source: string;
  /** Needs a held job $J (named $NAME). */
  needsJob: boolean;
  /** The job is cancelled and its accounting awaited before the command. */
  ended: boolean;
  /** Whole-queue listing: only lines naming the job (and header lines) are compared. */
  mine: boolean;
  /** Output depends on the shared oracle's load. */
  racy: boolean;
}

export type RealCase = ScriptCase | CommandCase;

const DIR = __dirname;

export function loadScripts(dir = join(DIR, "corpus")): ScriptCase[] {
  return readdirSync(dir).sort().map((name) => {
    const text = readFileSync(join(dir, name), "utf8");
    const source = /^# corpus: (.*)$/m.exec(text)?.[1] ?? "(unknown)";
    return { kind: "script", name, text, source };
  });
}

/** Parse commands.txt: blank and `#` lines are skipped; leading @tags, then the command, then `## source`. */
export function parseCommands(text: string): CommandCase[] {
  const out: CommandCase[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const [body = "", source = ""] = line.split(/\s+## /, 2);
    const tags = new Set<string>();
    let cmd = body.trim();
    for (let m = /^@(\w+)\s+/.exec(cmd); m; m = /^@(\w+)\s+/.exec(cmd)) {
      tags.add(m[1] as string);
      cmd = cmd.slice(m[0].length);
    }
    const needsJob = /\$(J|NAME)\b/.test(cmd);
    out.push({ kind: "command", name: `c${i + 1}`, cmd, source: source.trim(), needsJob, ended: tags.has("ended"), mine: tags.has("mine"), racy: tags.has("racy") });
  });
  return out;
}

export const loadCommands = (file = join(DIR, "commands.txt")): CommandCase[] => parseCommands(readFileSync(file, "utf8"));

/** Lines of a whole-queue listing that belong to the case: those naming <J>, and header lines (no digit at all). */
export function onlyMine(masked: string): string {
  return masked.split("\n").filter((l) => l.includes("<J>") || (l !== "" && !/\d/.test(l))).join("\n");
}
