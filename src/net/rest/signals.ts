/**
 * @module rest/signals
 * The `signal` query of DELETE /job/{id}: a number or a name with or without
 * "SIG" (scancel's rules). Absent = cancel (0).
 */
import { signalByName } from "../../compat/signals.ts";
import { RestError } from "./errors.ts";

export function signalNumber(text: string | undefined): number {
  if (text === undefined || text === "") return 0;
  if (/^\d{1,2}$/.test(text) && Number(text) < 65) return Number(text);
  const n = signalByName(text);
  if (n === undefined) throw new RestError("InvalidQuery", `Unknown signal "${text.slice(0, 32)}"`, "signal");
  return n;
}
