/**
 * @module compat/options/script-directives
 * The batch script side of sbatch: the --wrap script, the sanity checks sbatch applies to a
 * script (empty, no "#!", DOS line breaks) and the #SBATCH directives. Directives count only
 * in the leading block of comment/blank lines; each must start its line with "#SBATCH"; values
 * may be quoted. All directive words are parsed as one argv, as sbatch does.
 */
import { err, ok, type Result } from "../../lib/result.ts";
import { parseArgs, type ParsedOption } from "./parse-args.ts";

/** The script sbatch --wrap=<command> submits (same bytes as Slurm's). */
export const wrapScript = (command: string): string =>
  `#!/bin/sh\n# This script was created by sbatch --wrap.\n\n${command}\n`;

/** Slurm's refusals of a script before any directive is read (exit code 1). */
export function checkScript(script: string): Result<void> {
  if (script.length === 0) return err("EmptyScript", "Batch script is empty!");
  if (!script.startsWith("#!")) {
    return err(
      "NoShebang",
      "This does not look like a batch script.  The first\n" +
        "line must start with #! followed by the path to an interpreter.\n" +
        "For instance: #!/bin/sh",
    );
  }
  if (script.includes("\r\n")) {
    return err(
      "DosLineBreaks",
      "Batch script contains DOS line breaks (\\r\\n)\ninstead of expected UNIX line breaks (\\n).",
    );
  }
  return ok(undefined);
}

export interface Directives {
  /** Words of all #SBATCH lines, in order, quotes removed. */
  words: string[];
  /** A #PBS line was seen (Spur does not translate PBS directives). */
  pbs: boolean;
  /** A "#SBATCH hetjob" / "packjob" separator was seen. */
  hetjob: boolean;
  /** The words of each heterogeneous job component's block (one block when there is no separator). */
  blocks: string[][];
}

const MAGIC = "#SBATCH";

/** Collect the #SBATCH words from the leading comment block of a script. */
export function scanDirectives(script: string): Directives {
  const result: Directives = { words: [], pbs: false, hetjob: false, blocks: [[]] };
  for (const line of script.split("\n")) {
    if (!line.startsWith("#")) {
      if (line.trim() === "") continue;
      break;
    }
    if (line.startsWith("#PBS")) result.pbs = true;
    if (!line.startsWith(MAGIC)) continue;
    const words = lineWords(line.slice(MAGIC.length));
    if (words[0] === "hetjob" || words[0] === "packjob") {
      result.hetjob = true;
      result.blocks.push([]);
    } else {
      result.words.push(...words);
      result.blocks[result.blocks.length - 1]?.push(...words);
    }
  }
  return result;
}

/**
 * Split one directive line as sbatch does: whitespace separates, quotes group (and are
 * removed), a backslash takes the next character as it is (inside quotes too: `"a\"b"` is
 * a"b) but for unquoted whitespace, which still ends the word (`a\ b` is two words), and an
 * unquoted '#' starts a comment anywhere, inside a word too (`--ntasks=1#128` is --ntasks=1).
 * A word that comes out empty (`""`, `''`) ends the line: 22.05 reads no further words from
 * it, so `#SBATCH -o "" -J x` leaves `-o` to take the next line's first word.
 */
export function lineWords(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote = "";
  let escaped = false;
  // false once an empty word was read: the rest of the line is not looked at
  const endWord = (): boolean => {
    if (!inWord) return true;
    if (word === "") return false;
    words.push(word);
    word = "";
    inWord = false;
    return true;
  };
  for (const ch of text) {
    if (escaped) {
      escaped = false;
      if (quote === "" && /\s/.test(ch)) {
        if (!endWord()) return words;
        continue;
      }
      word += ch;
      inWord = true;
      continue;
    }
    if (ch === "\\") {
      escaped = true;
      inWord = true;
      continue;
    }
    if (quote !== "") {
      if (ch === quote) quote = "";
      else word += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (!endWord()) return words;
    } else if (ch === "#") {
      break;
    } else {
      word += ch;
      inWord = true;
    }
  }
  endWord();
  return words;
}

/**
 * Parse the directive words with sbatch's option table; a stray word is Slurm's "Invalid directive".
 * One job only: a script with "#SBATCH hetjob" blocks goes through parseDirectiveBlocks.
 */
export function parseDirectives(d: Directives): Result<ParsedOption[]> {
  if (d.hetjob) return err("Unsupported", "heterogeneous jobs (#SBATCH hetjob) are not supported here");
  return parseWords(d.words);
}

/** Each heterogeneous job component's directives (one list when the script has no separator). */
export function parseDirectiveBlocks(d: Directives): Result<ParsedOption[][]> {
  const out: ParsedOption[][] = [];
  for (const block of d.blocks) {
    const parsed = parseWords(block);
    if (!parsed.ok) return parsed;
    out.push(parsed.value);
  }
  return ok(out);
}

function parseWords(words: readonly string[]): Result<ParsedOption[]> {
  const parsed = parseArgs("sbatch", words);
  if (!parsed.ok) return parsed;
  const stray = parsed.value.operands[0];
  if (stray !== undefined) return err("InvalidDirective", `Invalid directive found in batch script: ${stray}`, 255);
  return ok(parsed.value.options);
}
