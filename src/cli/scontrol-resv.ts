/**
 * @module cli/scontrol-resv
 * scontrol's reservation commands and views: `create reservation k=v ...`,
 * `update ReservationName=x k=v ...`, `delete ReservationName=x` (or
 * `delete reservation x`), `show reservation [name]`, and the `sinfo -T`
 * table. StartTime/EndTime are resolved to epoch seconds here with the
 * caller's clock, so the controller's command carries no relative time.
 * Layouts follow Slurm's (scontrol's record, sinfo -T's columns) as
 * remembered; they are not in shared/oracle/golden.
 */
import type { CliPort } from "../net/ctl-port.ts";
import type { ReservationInfo } from "../net/gen/spur/v1/controller_pb.ts";
import type { Plain } from "../lib/plain.ts";
import { parseBeginTime } from "../compat/parse-time.ts";
import { formatIsoTime } from "../compat/format-time.ts";
import { messageOf, outcome, type Outcome } from "./scontrol-jobs.ts";

const TIME_KEYS = new Set(["starttime", "endtime"]);

/** Keys Slurm's scontrol takes by any unambiguous prefix (`start=now`, `dur=10`), as its strncasecmp tags. */
const PREFIX_KEYS = ["starttime", "endtime", "duration", "reservationname", "partitionname", "flags", "features", "licenses", "nodecnt", "nodes", "users", "accounts", "tres"];

function fullKey(key: string): string {
  if (key.length < 3 || PREFIX_KEYS.includes(key)) return key;
  const hits = PREFIX_KEYS.filter((k) => k.startsWith(key));
  return hits.length === 1 ? (hits[0] as string) : key;
}

/** key=value words to lower-cased fields, times resolved; an error text on a bad time. */
export function resvFields(words: readonly string[], now: number): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const w of words) {
    const eq = w.indexOf("=");
    if (eq < 0) continue;
    let key = w.slice(0, eq).toLowerCase();
    let value = w.slice(eq + 1);
    if (key.endsWith("+") || key.endsWith("-")) {
      value = `${key.slice(-1)}${value}`;
      key = key.slice(0, -1);
    }
    key = fullKey(key);
    if (key === "user") key = "users";
    if (key === "account") key = "accounts";
    if (key === "nodecount") key = "nodecnt";
    if (TIME_KEYS.has(key)) {
      const t = parseBeginTime(value, now, key === "starttime" ? "StartTime" : "EndTime");
      if (!t.ok) return t.error.message;
      value = String(t.value);
    }
    out[key] = value;
  }
  return out;
}

const nameOf = (fields: Record<string, string>): string => fields.reservationname ?? fields.reservation ?? "";

export async function resvCommand(port: CliPort, action: "create" | "update" | "delete", words: readonly string[]): Promise<Outcome> {
  const call = port.ctl.reservation;
  if (call === undefined) return outcome("", "reservations are not supported by this controller\n", true);
  const rest = words[0] !== undefined && /^res/i.test(words[0]) && !words[0].includes("=") ? words.slice(1) : words;
  const fields = resvFields(rest, port.now());
  const verb = action === "create" ? "creating" : action === "update" ? "updating" : "deleting";
  if (typeof fields === "string") return outcome("", `${fields}\nError ${verb} the reservation: Invalid time specification\n`, true);
  const bare = rest.find((w) => !w.includes("="));
  const name = nameOf(fields) || (action === "delete" ? (bare ?? "") : "");
  delete fields.reservationname;
  delete fields.reservation;
  try {
    const r = await call({ action, name, fields });
    if (action === "create") return outcome(`Reservation created: ${r.name}\n`);
    if (action === "update") return outcome("Reservation updated.\n");
    return outcome();
  } catch (e) {
    return outcome("", `Error ${verb} the reservation: ${messageOf(e)}\n`, true);
  }
}

const nullable = (xs: readonly string[]): string => (xs.length > 0 ? xs.join(",") : "(null)");

const durationText = (sec: number): string => {
  const d = Math.floor(sec / 86400);
  const pad = (x: number): string => String(x).padStart(2, "0");
  const hms = `${pad(Math.floor((sec % 86400) / 3600))}:${pad(Math.floor((sec % 3600) / 60))}:${pad(Math.floor(sec % 60))}`;
  return d > 0 ? `${d}-${hms}` : hms;
};

export function resvRecordText(r: Plain<ReservationInfo>, oneLiner: boolean): string {
  const lines = [
    `ReservationName=${r.name} StartTime=${formatIsoTime(r.startTime)} EndTime=${formatIsoTime(r.endTime)} Duration=${durationText(r.endTime - r.startTime)}`,
    `Nodes=${r.nodes || "(null)"} NodeCnt=${r.nodeCount} CoreCnt=${r.coreCount} Features=(null) PartitionName=${r.partition || "(null)"} Flags=${r.flags.join(",")}`,
    `TRES=cpu=${r.coreCount}`,
    `Users=${nullable(r.users)} Groups=(null) Accounts=${nullable(r.accounts)} Licenses=(null) State=${r.state} BurstBuffer=(null) Watts=n/a`,
    "MaxStartDelay=(null)",
  ];
  return oneLiner ? `${lines.join(" ")}\n` : `${lines.join("\n   ")}\n\n`;
}

export async function showReservations(port: CliPort, name: string | undefined, oneLiner: boolean): Promise<Outcome> {
  if (port.ctl.listReservations === undefined) return outcome("No reservations in the system\n");
  try {
    const all = (await port.ctl.listReservations({ withDeleted: false })).reservations;
    if (all.length === 0) return outcome("No reservations in the system\n");
    const picked = name === undefined ? all : all.filter((r) => r.name === name);
    if (picked.length === 0) return outcome("", `Reservation ${name} not found\n`, true);
    return outcome(picked.map((r) => resvRecordText(r, oneLiner)).join(""));
  } catch (e) {
    return outcome("", `slurm_load_reservations error: ${messageOf(e)}\n`, true);
  }
}

/** sinfo -T: one line per reservation. */
export function sinfoReservations(rows: readonly Plain<ReservationInfo>[], header: boolean): string {
  const line = (cells: [string, string, string, string, string, string]): string =>
    `${cells[0].padEnd(13)} ${cells[1].padStart(8)} ${cells[2].padStart(19)}  ${cells[3].padStart(19)}  ${cells[4].padStart(11)}  ${cells[5]}\n`;
  let out = header ? line(["RESV_NAME", "STATE", "START_TIME", "END_TIME", "DURATION", "NODELIST"]) : "";
  for (const r of rows) {
    out += line([r.name, r.state, formatIsoTime(r.startTime), formatIsoTime(r.endTime), durationText(r.endTime - r.startTime), r.nodes]);
  }
  return out;
}
