/**
 * @module rest/signals
 * The `signal` query of DELETE /job/{id}: a number or a name with or without
 * "SIG" (scancel's rules). Absent = cancel (0).
 */
import { RestError } from "./errors.ts";

const SIGNALS: Readonly<Record<string, number>> = {
  HUP: 1, INT: 2, QUIT: 3, ABRT: 6, KILL: 9, USR1: 10, USR2: 12, PIPE: 13, ALRM: 14, TERM: 15, CONT: 18, STOP: 19, TSTP: 20, URG: 23, XCPU: 24,
};

export function signalNumber(text: string | undefined): number {
  if (text === undefined || text === "") return 0;
  if (/^\d{1,2}$/.test(text) && Number(text) < 65) return Number(text);
  const name = text.toUpperCase().replace(/^SIG/, "");
  const n = SIGNALS[name];
  if (n === undefined) throw new RestError("InvalidQuery", `Unknown signal "${text.slice(0, 32)}"`, "signal");
  return n;
}
