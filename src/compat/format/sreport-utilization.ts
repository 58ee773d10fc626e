/**
 * @module format/sreport-utilization
 * `sreport cluster Utilization`'s layout, `format=` included. Facts from the 22.05 oracle: the
 * report takes any field of sreport's cluster reports (Login, Account, Proper Name and WCKey
 * print empty here); a word matches a field by prefix from a minimum length (`c`, `p`, `re`,
 * `tres` are unknown; `pl`/`planned` is PLND Down, the Planned column is `reserved`); `%N`
 * sets the width of Cluster, the name fields, TRES Name, TRES Count and Used (always 0 in this
 * report, as sreport prints a field it has no figure for), while the usage
 * columns keep the width their values need; Over Comm is the Planned time that did not fit (as
 * the rollup's over_secs), Energy 0 (Spur measures none); under -P a row ending with Used still ends in
 * '|' (that field's printer ignores being last).
 */
import {
  banner, formatWords, isPer, renderRows, usageLine, usageText, usageWidth, type ClusterUsage, type Column, type Style, type Window,
} from "./sreport.ts";

type Field = { column: Column; sized: boolean; value: (r: ClusterUsage) => string };

/** The fields, by the name sreport matches and the shortest prefix it takes. */
function fieldTable(rows: readonly ClusterUsage[], style: Style): [string, number, Field][] {
  const f = style.format;
  const max = (pick: (r: ClusterUsage) => number): number => rows.reduce((m, r) => Math.max(m, pick(r)), 0);
  const usage = (name: string, pick: (r: ClusterUsage) => number, of: (r: ClusterUsage) => number = (r) => r.reported): Field => ({
    column: { name, width: usageWidth(max(pick), f) }, sized: false, value: (r) => usageText(pick(r), of(r), f),
  });
  const empty = (name: string, width: number, left = false): Field => ({ column: { name, width, ...(left ? { left } : {}) }, sized: true, value: () => "" });
  // Used is not a figure of this report: sreport prints it as 0, 10 wide (18 with the per formats)
  const usedWidth = isPer(f) ? 18 : 10;
  return [
    ["accounts", 2, empty("Account", 15)],
    ["allocated", 2, usage("Allocated", (r) => r.allocated)],
    ["cluster", 2, { column: { name: "Cluster", width: 9 }, sized: true, value: (r) => r.cluster }],
    ["count", 2, { column: { name: "TRES Count", width: 10 }, sized: true, value: (r) => String(r.count ?? 0) }],
    ["down", 1, usage("Down", (r) => r.down)],
    // Energy: the width Allocated needs (sreport sizes it so), 0 as Spur measures none
    ["energy", 1, { column: { name: "Energy", width: usageWidth(max((r) => r.allocated), f) }, sized: false, value: () => usageText(0, 0, f) }],
    ["idle", 1, usage("Idle", (r) => r.idle)],
    ["login", 1, empty("Login", 9)],
    ["overcommitted", 1, usage("Over Comm", (r) => r.over ?? 0)],
    ["planneddown", 2, usage("PLND Down", (r) => r.plannedDown)],
    ["proper", 2, empty("Proper Name", 15)],
    ["reported", 3, usage("Reported", (r) => r.reported, (r) => r.capacity)],
    ["reserved", 3, usage("Planned", (r) => r.planned)],
    ["trescount", 5, { column: { name: "TRES Count", width: 10 }, sized: true, value: (r) => String(r.count ?? 0) }],
    ["tresname", 5, { column: { name: "TRES Name", width: 14 }, sized: true, value: (r) => r.tres ?? "cpu" }],
    ["used", 1, { column: { name: "Used", width: usedWidth }, sized: true, value: () => usageText(0, 0, f) }],
    ["wckey", 2, empty("WCKey", 15)],
  ];
}

/** sreport cluster utilization; `timeText` prints a time as Slurm does (ISO without zone). */
export function clusterUtilizationText(
  rows: readonly ClusterUsage[], w: Window, style: Style, timeText: (t: number) => string, tresGiven = false, format: readonly string[] = [],
): { text: string; stderr: string } {
  const table = fieldTable(rows, style);
  const defaults = ["Cluster", ...(tresGiven ? ["TresName"] : []), "Allocated", "Down", "PlannedDown", "Idle", "Reserved", "Reported"];
  const words = format.length > 0 ? format : defaults;
  const { picks, stderr } = formatWords(words, (word) => table.find(([name, min]) => word.length >= min && name.startsWith(word))?.[2]);
  const fields = picks.map(({ hit, width }) => (width === 0 || !hit.sized ? hit : { ...hit, column: { name: hit.column.name, width: Math.abs(width), ...(width < 0 ? { left: true } : {}) } }));
  let cells = rows.map((r) => fields.map((x) => x.value(r)));
  // -P: a row whose last field is Used still ends in '|' (oracle 22.05: format=cl,u prints "oracle|0|")
  const trailing = style.parsable === "plain" && fields[fields.length - 1]?.column.name === "Used";
  if (trailing) cells = cells.map((c) => [...c.slice(0, -1), `${c[c.length - 1] ?? ""}|`]);
  const title = `Cluster Utilization ${timeText(w.start)} - ${timeText(w.end - 1)}`;
  const unit = tresGiven && style.format !== "percent" ? usageLine(style.format).replace("CPU ", "TRES ") : usageLine(style.format);
  return { text: banner(title, unit, style) + renderRows(fields.map((x) => x.column), cells, style), stderr };
}
