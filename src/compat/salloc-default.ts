/**
 * @module compat/salloc-default
 * What `salloc` runs when it is given no command (Slurm 21.08+ behaviour, the slurm.conf keys
 * as Slurm reads them):
 * - `LaunchParameters=use_interactive_step`: the interactive step, `srun` with
 *   `InteractiveStepOptions=` (default `--interactive --preserve-env --pty $SHELL`), which starts
 *   the user's shell on a pseudo-terminal on the allocation's first node;
 * - else `SallocDefaultCommand=` (removed in Slurm 20.11; honoured for sites that still set it),
 *   run by /bin/sh;
 * - else the user's shell, on the host salloc runs on.
 * Pure: the configuration's values and the shell come in as arguments.
 */

export const INTERACTIVE_STEP_OPTIONS_DEFAULT = "--interactive --preserve-env --pty $SHELL";

export interface SallocDefaults {
  /** LaunchParameters= (comma separated), undefined when unset. */
  launchParameters: string | undefined;
  /** InteractiveStepOptions=, undefined when unset. */
  interactiveStepOptions: string | undefined;
  /** SallocDefaultCommand=, undefined when unset. */
  sallocDefaultCommand: string | undefined;
  /** The user's shell ($SHELL, else the passwd entry's). */
  shell: string;
}

/** The command: `srun` true means argv are srun's arguments (run as the srun role), else argv is the command. */
export function sallocDefaultCommand(d: SallocDefaults): { srun: boolean; argv: string[] } {
  const params = (d.launchParameters ?? "").split(",").map((p) => p.trim().toLowerCase());
  if (params.includes("use_interactive_step")) {
    const options = d.interactiveStepOptions?.trim() || INTERACTIVE_STEP_OPTIONS_DEFAULT;
    return { srun: true, argv: splitWords(options).map((w) => w.replaceAll("$SHELL", d.shell).replaceAll("${SHELL}", d.shell)) };
  }
  const legacy = d.sallocDefaultCommand?.trim() ?? "";
  if (legacy !== "") return { srun: false, argv: ["/bin/sh", "-c", legacy] };
  return { srun: false, argv: [d.shell] };
}

/** Words of an option string: spaces separate, single or double quotes group (a conf value is one line). */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote = "";
  let started = false;
  for (const ch of text) {
    if (quote !== "") {
      if (ch === quote) quote = "";
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      started = true;
    } else if (ch === " " || ch === "\t") {
      if (started || word !== "") words.push(word);
      word = "";
      started = false;
    } else {
      word += ch;
    }
  }
  if (started || word !== "") words.push(word);
  return words;
}
