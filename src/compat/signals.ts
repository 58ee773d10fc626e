/**
 * @module compat/signals
 * The one table of Linux signal names (numbers 1-31, as `kill -l` lists them) and
 * Slurm's way of reading a signal given by a user: a name in any case, with or
 * without "SIG" (plus the aliases IOT, POLL, CLD), or a number. Every command and
 * serializer that reads or prints a signal goes through here.
 */

/** Index + 1 is the signal number. */
export const SIGNAL_NAMES: readonly string[] = [
  "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2",
  "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ",
  "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
];

const ALIASES: Readonly<Record<string, string>> = { IOT: "ABRT", POLL: "IO", CLD: "CHLD" };

/** The name without "SIG" ("TERM" for 15); undefined for a number with no name (real-time signals, 0). */
export function signalName(num: number): string | undefined {
  return SIGNAL_NAMES[num - 1];
}

/** A signal name ("KILL", "sigterm", "SigUsr1", aliases) → its number; undefined when unknown. Names only. */
export function signalByName(text: string): number | undefined {
  const name = text.toUpperCase().replace(/^SIG/, "");
  const index = SIGNAL_NAMES.indexOf(ALIASES[name] ?? name);
  return index < 0 ? undefined : index + 1;
}

/** A signal name or a number 1-64 (what --signal and scontrol accept); undefined when neither. */
export function signalNumber(text: string): number | undefined {
  if (/^[0-9]+$/.test(text)) {
    const n = Number(text);
    return n >= 1 && n <= 64 ? n : undefined;
  }
  return signalByName(text);
}
