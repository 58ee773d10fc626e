/**
 * @module format/sacctmgr-fields
 * sacctmgr's columns: per entity, the default `format=` and every field's
 * header and width, plus the cell printer shared with sshare (right-justified
 * to the width; a longer value is cut and ends in "+"; parsable output joins
 * with "|", -p with a trailing one). Widths and defaults are from Slurm's
 * sacctmgr/sshare as remembered and checked against its documentation's
 * examples; they are not in shared/slurm-surface, so treat them as best effort.
 */

export interface Column {
  key: string;
  header: string;
  width: number;
  /** `%-N` in a format= item: left-justified. */
  left: boolean;
}

/** Lower-cased field name -> [header, default width]. */
export const SACCTMGR_FIELDS: Record<string, [string, number]> = {
  account: ["Account", 10], descr: ["Descr", 20], description: ["Descr", 20], org: ["Org", 20], organization: ["Org", 20],
  user: ["User", 10], "def acct": ["Def Acct", 10], defaultaccount: ["Def Acct", 10], admin: ["Admin", 9], adminlevel: ["Admin", 9],
  name: ["Name", 10], id: ["ID", 6], type: ["Type", 8], priority: ["Priority", 10], gracetime: ["GraceTime", 10], preempt: ["Preempt", 10],
  preemptexempttime: ["PreemptExemptTime", 19], preemptmode: ["PreemptMode", 11], flags: ["Flags", 20],
  usagethres: ["UsageThres", 10], usagefactor: ["UsageFactor", 11], grptres: ["GrpTRES", 13], grptresmins: ["GrpTRESMins", 13],
  grptresrunmin: ["GrpTRESRunMins", 13], grptresrunmins: ["GrpTRESRunMins", 13], grpjobs: ["GrpJobs", 7], grpsubmit: ["GrpSubmit", 9], grpsubmitjobs: ["GrpSubmit", 9],
  grpwall: ["GrpWall", 11], maxtres: ["MaxTRES", 13], maxtrespernode: ["MaxTRESPerNode", 14], maxtresmins: ["MaxTRESMins", 13],
  maxwall: ["MaxWall", 11], maxtrespu: ["MaxTRESPU", 13], maxjobspu: ["MaxJobsPU", 9], maxsubmitpu: ["MaxSubmitPU", 11],
  maxtrespa: ["MaxTRESPA", 13], maxjobspa: ["MaxJobsPA", 9], maxsubmitpa: ["MaxSubmitPA", 11], mintres: ["MinTRES", 13],
  cluster: ["Cluster", 10], partition: ["Partition", 10], share: ["Share", 9], fairshare: ["Share", 9], maxjobs: ["MaxJobs", 7],
  maxsubmit: ["MaxSubmit", 9], maxsubmitjobs: ["MaxSubmit", 9], qos: ["QOS", 20], "def qos": ["Def QOS", 9], defaultqos: ["Def QOS", 9],
  maxnodes: ["MaxNodes", 8], maxcpus: ["MaxCPUs", 8], maxcpumins: ["MaxCPUMins", 11],
  grpnodes: ["GrpNodes", 8], grpcpus: ["GrpCPUs", 8], grpmem: ["GrpMem", 7], grpcpumins: ["GrpCPUMins", 11],
  parentname: ["ParentName", 10], parentid: ["ParentID", 8], controlhost: ["ControlHost", 15], controlport: ["ControlPort", 12], rpc: ["RPC", 5],
  // QOS limits Spur does not keep: their columns, empty (oracle 22.05: sacctmgr list qos format=NAME)
  grpjobsaccrue: ["GrpJobsAccrue", 13], limitfactor: ["LimitFactor", 11], maxjobsaccruepa: ["MaxJobsAccruePA", 15],
  maxjobsaccruepu: ["MaxJobsAccruePU", 15], minpriothres: ["MinPrioThres", 12], maxtresrunminspa: ["MaxTRESRunMinsPA", 15],
  maxtresrunminspu: ["MaxTRESRunMinsPU", 15], maxcpuspu: ["MaxCPUsPU", 9], maxnodespu: ["MaxNodesPU", 10],
  // association, user, account and cluster columns of what Spur does not keep (empty; FedState NA, as unfederated)
  maxjobsaccrue: ["MaxJobsAccrue", 13], grpcpurunmins: ["GrpCPURunMins", 13], maxcpurunmins: ["MaxCPURunMinsPU", 15],
  wckeys: ["WCKeys", 20], defaultwckey: ["Def WCKey", 10], coordinators: ["Coord Accounts", 20],
  classification: ["Class", 9], federation: ["Federation", 10], fedstate: ["FedState", 12], features: ["Features", 20], nodecount: ["NodeCount", 9],
};

/** Long names sacctmgr takes for a column, as the column they name (oracle 22.05: format=MaxJobsPerUser prints MaxJobsPU). */
export const SACCTMGR_ALIASES: Readonly<Record<string, string>> = {
  maxtresperjob: "maxtres", maxtresminsperjob: "maxtresmins", maxwalldurationperjob: "maxwall", mintresperjob: "mintres",
  maxtresperuser: "maxtrespu", maxjobsperuser: "maxjobspu", maxsubmitjobsperuser: "maxsubmitpu",
  maxtresperaccount: "maxtrespa", maxjobsperaccount: "maxjobspa", maxsubmitjobsperaccount: "maxsubmitpa",
  minpriothreshold: "minpriothres", maxtresrunmins: "maxtresrunminspu",
};

export const SACCTMGR_DEFAULT_FORMAT: Record<string, string> = {
  account: "account,descr,org",
  user: "user,def acct,admin",
  qos: "name,priority,gracetime,preempt,preemptexempttime,preemptmode,flags%40,usagethres,usagefactor,grptres,grptresmins,grptresrunmin,grpjobs,grpsubmit,grpwall,maxtres,maxtrespernode,maxtresmins,maxwall,maxtrespu,maxjobspu,maxsubmitpu,maxtrespa,maxjobspa,maxsubmitpa,mintres",
  association: "cluster,account,user,partition,share,priority,grpjobs,grptres,grpsubmit,grpwall,grptresmins,maxjobs,maxtres,maxtrespernode,maxsubmit,maxwall,maxtresmins,qos,def qos,grptresrunmin",
  cluster: "cluster,controlhost,controlport,rpc,share,grpjobs,grptres,grpsubmit,maxjobs,maxtres,maxsubmit,maxwall,qos,def qos",
  tres: "type,name%15,id",
};

/** `sacctmgr list users -s` (withassoc): the user's columns, then the association's (22.05). */
export const USER_WITH_ASSOC_FORMAT = "user,def acct,admin,cluster,account,partition,share,priority,maxjobs,maxnodes,maxcpus,maxsubmit,maxwall,maxcpumins,qos,def qos";

/** `sacctmgr list accounts -s` (withassoc): the account's columns, then each of its associations' (22.05). */
export const ACCOUNT_WITH_ASSOC_FORMAT =
  "account,descr,org,cluster,parentname,user,share,priority,grpjobs,grpnodes,grpcpus,grpmem,grpsubmit,grpwall,grpcpumins,maxjobs,maxnodes,maxcpus,maxsubmit,maxwall,maxcpumins,qos,def qos";

/** The old per-TRES limit columns (MaxNodes, MaxCPUs, MaxCPUMins) read from a row's MaxTRES and MaxTRESMins. */
export function withTresLimits(row: Record<string, string>): Record<string, string> {
  const pick = (text: string | undefined, name: string): string => new RegExp(`(?:^|,)${name}=(\\d+)`).exec(text ?? "")?.[1] ?? "";
  return {
    ...row, maxnodes: pick(row.maxtres, "node"), maxcpus: pick(row.maxtres, "cpu"), maxcpumins: pick(row.maxtresmins, "cpu"),
    grpnodes: pick(row.grptres, "node"), grpcpus: pick(row.grptres, "cpu"), grpmem: pick(row.grptres, "mem"), grpcpumins: pick(row.grptresmins, "cpu"),
    maxcpuspu: pick(row.maxtrespu, "cpu"), maxnodespu: pick(row.maxtrespu, "node"),
  };
}

/** "account,user%20,maxjobs%-5" -> columns (an alias as the column it names); unknown names are returned as an error string. */
export function parseFieldList(text: string, table: Record<string, [string, number]>, aliases: Readonly<Record<string, string>> = {}): Column[] | string {
  const out: Column[] = [];
  for (const raw of text.split(",")) {
    const item = raw.trim();
    if (item === "") continue;
    const pct = item.indexOf("%");
    const typed = (pct < 0 ? item : item.slice(0, pct)).toLowerCase();
    const name = aliases[typed] ?? typed;
    const known = table[name];
    if (known === undefined) return `Invalid field requested: "${item.slice(0, pct < 0 ? undefined : pct)}"`;
    const spec = pct < 0 ? "" : item.slice(pct + 1);
    const width = spec === "" ? known[1] : Math.abs(Number.parseInt(spec, 10)) || known[1];
    out.push({ key: name, header: known[0], width, left: spec.startsWith("-") });
  }
  return out;
}

/** One cell the way sacctmgr and sshare print it. */
export function cell(value: string, col: Column): string {
  const text = value.length > col.width ? `${value.slice(0, col.width - 1)}+` : value;
  return col.left ? text.padEnd(col.width) : text.padStart(col.width);
}

export type Parsable = "" | "p" | "P";

/** Header, dashes and rows; `parsable` "p" ends each line with "|", "P" does not. */
export function renderTable(cols: readonly Column[], rows: readonly Record<string, string>[], header: boolean, parsable: Parsable): string {
  const lines: string[] = [];
  const line = (cells: string[]): string => (parsable === "" ? `${cells.join(" ")} ` : `${cells.join("|")}${parsable === "p" ? "|" : ""}`);
  if (header) {
    // a header longer than its column is cut without the "+" values get (oracle 22.05: GrpTRESRunMins in 13 is GrpTRESRunMin)
    lines.push(line(cols.map((c) => (parsable === "" ? cell(c.header.slice(0, c.width), c) : c.header))));
    if (parsable === "") lines.push(line(cols.map((c) => "-".repeat(c.width))));
  }
  for (const r of rows) lines.push(line(cols.map((c) => (parsable === "" ? cell(r[c.key] ?? "", c) : (r[c.key] ?? "")))));
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}
