/**
 * @module tests/differential/grammar
 * The values the differential tester gives an option, drawn from the option's grammar:
 * by argKind (the option table's column) and, where an option's values name things of the
 * site (partitions, accounts, GRES types, nodes), by name. Each draw is valid, an edge
 * (legal but unusual: zero, case, units, unlimited, empty) or invalid (what sbatch must
 * refuse, with Slurm's message). The site is the oracle's (../shared/oracle/README.md).
 */
import type { Rng } from "../../src/lib/rng.ts";

export type Form = "valid" | "edge" | "invalid";

/** Values of each form; a form with no values falls back to "valid". */
export type Grammar = Partial<Record<Form, readonly string[]>>;

/** The oracle's site: what valid names are. */
export const SITE = {
  partitions: ["debug", "gpu"],
  nodes: ["n1", "n2", "n3", "n4"],
  gpuType: "mi300x",
  account: "root",
  qos: "normal",
} as const;

const INT: Grammar = { valid: ["1", "2", "4"], edge: ["0", "3", "16", "2147483647", "+2", "02"], invalid: ["-1", "abc", "2x", "1.5", ""] };
const SIZE: Grammar = {
  valid: ["100", "512M", "1G", "1000", "2048K"],
  edge: ["0", "1g", "100m", "1T", "1024k", "4000", "4001M"],
  invalid: ["abc", "-5", "1Q", "1.5G", "M"],
};
const TIME: Grammar = {
  valid: ["10", "1:00", "1:00:00", "1-0", "2-12", "1-02:03:04", "30:00"],
  edge: ["0", "UNLIMITED", "infinite", "Unlimited", "1-2:3", "61", "00:00:30"],
  invalid: ["abc", "1:2:3:4", "-1", "1-", "1.5"],
};
const DATETIME: Grammar = {
  valid: ["now+1hour", "now+60", "now+2days", "2037-01-01T10:00:00", "2037-01-01"],
  edge: ["now", "now+0", "midnight", "noon", "teatime", "tomorrow", "now+90minutes"],
  invalid: ["garbage", "now+", "2037-13-45", "25:61"],
};
const STRING: Grammar = { valid: ["abc", "x1", "my-job"], edge: ["a b", "x=y", "a,b", "ÄÖ"], invalid: [""] };
const PATH: Grammar = { valid: ["/tmp", "."], edge: ["sub/dir", "/"], invalid: ["/nonexistent/dir", ""] };
const PATTERN: Grammar = {
  valid: ["out-%j.txt", "%x-%A_%a.out", "/dev/null", "log.%u"],
  edge: ["%%j", "%5j", "o", "dir/%N.%j"],
  invalid: [""],
};
const NODELIST: Grammar = { valid: ["n1", "n[1-2]", "n1,n3"], edge: ["n[1-4]", "N1", "n[3-3]"], invalid: ["n9", "n[1-", "bogus", ""] };
const GPU_SPEC: Grammar = {
  valid: ["1", "2", `${SITE.gpuType}:1`],
  edge: ["0", "8", `gpu:${SITE.gpuType}:1`, `${SITE.gpuType.toUpperCase()}:1`],
  invalid: ["9", "abc", "nope:1", "-1", ""],
};

/** By the table's argKind (first word before "(" for spec/list families). */
const BY_KIND: Record<string, Grammar> = {
  int: INT,
  "opt:int": INT,
  size: SIZE,
  time: TIME,
  "time(minutes)": { valid: ["10", "0"], edge: ["1:00"], invalid: ["abc"] },
  datetime: DATETIME,
  string: STRING,
  path: PATH,
  "path|fd": { valid: ["/dev/null"], edge: ["0"], invalid: ["/nonexistent"] },
  pattern: PATTERN,
  nodelist: NODELIST,
  "spec([type:]count)": GPU_SPEC,
  octal: { valid: ["022", "0077"], edge: ["0"], invalid: ["999", "abc"] },
  list: { valid: ["abc"], edge: ["a,b"], invalid: [""] },
};

/** Options whose values name things of the site, or have a grammar of their own. */
const BY_NAME: Record<string, Grammar> = {
  account: { valid: [SITE.account], edge: ["ROOT", "root,root"], invalid: ["bogus", ""] },
  qos: { valid: [SITE.qos], edge: ["NORMAL", "normal,normal"], invalid: ["bogus", ""] },
  partition: { valid: ["debug", "gpu", "debug,gpu"], edge: ["DEBUG", "gpu,debug", "debug,"], invalid: ["bogus", "debug,bogus", ""] },
  reservation: { valid: ["bogus"], invalid: [""] },
  clusters: { valid: ["oracle"], edge: ["ORACLE"], invalid: ["bogus"] },
  cluster: { valid: ["oracle"], invalid: ["bogus"] },
  "job-name": { valid: ["dtjob", "a.b"], edge: ["a b", "x".repeat(80), "%j"], invalid: [""] },
  nodes: { valid: ["1", "2", "1-2", "4"], edge: ["-3", "1-", "2-2", "01", "1-4", "1,2"], invalid: ["5", "0", "2-1", "abc", "1-9999999999"] },
  ntasks: { valid: ["1", "2", "4"], edge: ["8", "16", "0"], invalid: ["-1", "abc", "99999"] },
  "cpus-per-task": { valid: ["1", "2", "4"], edge: ["3", "0"], invalid: ["5", "-1", "abc"] },
  mem: { valid: ["100", "1G", "512M"], edge: ["0", "4000", "1g", "100m"], invalid: ["5000", "abc", "1.5G", "-1"] },
  "mem-per-cpu": { valid: ["100", "256", "1G"], edge: ["0", "1000M", "100k"], invalid: ["abc", "99999G"] },
  "mem-per-gpu": { valid: ["100", "1G"], edge: ["0"], invalid: ["abc"] },
  gres: { valid: ["gpu:1", `gpu:${SITE.gpuType}:2`, "gpu"], edge: ["gpu:0", "none", "gpu:8", `gres/gpu:1`], invalid: ["gpu:9", "gpu:nope:1", "bogus:1", "gpu:-1"] },
  "gres-flags": { valid: ["enforce-binding", "disable-binding"], invalid: ["bogus"] },
  constraint: { valid: ["bogus"], edge: ["a&b", "a|b", "[a*1&b*1]"], invalid: ["a&", ""] },
  prefer: { valid: ["bogus"], invalid: [""] },
  licenses: { valid: ["bogus:1"], edge: ["bogus", "a:1,b:2"], invalid: ["bogus:-1", ""] },
  array: { valid: ["0-3", "1,3,5", "0-9:2", "0-3%1", "7"], edge: ["0", "1-1", "0-3%0", "3-0", "0-1000"], invalid: ["abc", "-1", "0-1000001", "1-2-3", ""] },
  dependency: { valid: ["singleton", "afterok:1"], edge: ["after:1+10", "afterany:1?afterok:2", "expand:1"], invalid: ["bogus:1", "afterok:", "afterok:abc"] },
  "kill-on-invalid-dep": { valid: ["yes", "no"], edge: ["YES", "No"], invalid: ["maybe"] },
  "open-mode": { valid: ["append", "truncate"], edge: ["APPEND", "a"], invalid: ["bogus"] },
  exclusive: { valid: ["user"], edge: ["mcs", "USER"], invalid: ["bogus", "topo"] },
  requeue: { invalid: ["expedite", "bogus"] },
  hint: { valid: ["nomultithread", "compute_bound"], edge: ["multithread", "memory_bound"], invalid: ["bogus"] },
  "mail-type": { valid: ["BEGIN", "END,FAIL", "ALL"], edge: ["none", "end", "TIME_LIMIT_90", "ARRAY_TASKS"], invalid: ["bogus", ""] },
  "mail-user": { valid: ["a@b.c"], edge: ["root"], invalid: [""] },
  signal: { valid: ["USR1", "B:USR1@60", "10@30", "SIGUSR2"], edge: ["R:TERM", "usr1", "0", "USR1@0", "RB:USR1"], invalid: ["bogus", "B:", "USR1@abc", "99"] },
  switches: { valid: ["1", "1@10:00"], edge: ["0", "2@1-0"], invalid: ["abc", "1@abc"] },
  nice: { valid: ["0", "10", "-5"], edge: ["+7", "2147483645"], invalid: ["abc", "2147483646"] },
  priority: { valid: ["100", "TOP"], edge: ["0", "top"], invalid: ["abc", "-1"] },
  export: { valid: ["ALL", "NONE", "ALL,FOO=bar"], edge: ["NIL", "FOO", "none"], invalid: [""] },
  distribution: { valid: ["block", "cyclic", "plane=2", "block:cyclic"], edge: ["*", "cyclic:fcyclic", "block,Pack", "arbitrary"], invalid: ["bogus", "plane=0", "plane"] },
  "threads-per-core": { valid: ["1"], edge: ["2"], invalid: ["abc", "0"] },
  // 22.05 ignores parts after the third (oracle: -B 1:2:3:4 accepted)
  "extra-node-info": { valid: ["1", "1:4", "1:4:1"], edge: ["*:*:1", "2", "1:2:3:4"], invalid: ["abc", "1:x"] },
  "gpu-bind": { valid: ["closest", "none", "map_gpu:0,1"], edge: ["verbose,closest", "single:1", "closest,verbose", "per_task:0"], invalid: ["bogus", "map_gpu:0x1", "single:-1"] },
  "gpu-freq": { valid: ["low", "high", "medium"], edge: ["memory=low,verbose"], invalid: ["bogus"] },
  "cpu-freq": { valid: ["low", "high", "Performance"], edge: ["1000-2000", "low-high:OnDemand"], invalid: ["bogus"] },
  "mem-bind": { valid: ["local", "none"], edge: ["verbose,local"], invalid: ["bogus"] },
  "wait-all-nodes": { valid: ["0", "1"], invalid: ["2", "abc"] },
  "ntasks-per-node": { valid: ["1", "2"], edge: ["4", "0"], invalid: ["abc", "-1"] },
  "tasks-per-node": { valid: ["1", "2"], edge: ["4"], invalid: ["abc"] },
  "core-spec": { valid: ["0", "1"], edge: ["4"], invalid: ["abc"] },
  "acctg-freq": { valid: ["30", "task=30"], edge: ["energy=0,task=60"], invalid: ["bogus=1"] },
  profile: { valid: ["none", "task"], edge: ["all", "energy,task"], invalid: ["bogus"] },
  propagate: { valid: ["ALL", "NOFILE"], edge: ["NONE", "CORE,STACK"], invalid: ["bogus"] },
  "cpus-per-gpu": { valid: ["1", "2"], edge: ["0", "4"], invalid: ["abc"] },
  "ntasks-per-gpu": { valid: ["1"], edge: ["0"], invalid: ["abc"] },
  "gpus-per-task": { valid: ["1", `${SITE.gpuType}:1`], edge: ["0"], invalid: ["abc", "nope:1"] },
  "tres-per-task": { valid: ["cpu=2", "gres/gpu=1"], edge: ["cpu=1,gres/gpu:mi300x=1"], invalid: ["bogus=1"] },
  tmp: { valid: ["0", "100", "1G"], edge: ["100m"], invalid: ["abc"] },
  "delay-boot": { valid: ["10"], edge: ["0", "1:00"], invalid: ["abc"] },
  chdir: { valid: ["/tmp", "."], edge: ["sub"], invalid: ["/nonexistent/dir"] },
  input: { valid: ["/dev/null"], edge: ["in-%j.txt"], invalid: [""] },
  "comment": { valid: ["hello", "run-1"], edge: ["a b", "x=y", ""] },
  wckey: { valid: ["wk1"], edge: ["*wk"], invalid: [""] },
  "mcs-label": { valid: ["abc"], invalid: [""] },
  network: { valid: ["bogus"], invalid: [""] },
  uid: { valid: ["root", "0"], invalid: ["nosuchuser"] },
  gid: { valid: ["root", "0"], invalid: ["nosuchgroup"] },
  "bbf": { valid: ["/nonexistent"] },
  "batch": { valid: ["bogus"] },
  "cluster-constraint": { valid: ["bogus"], edge: ["!bogus"] },
  "power": { valid: ["level"] },
  "exclude": { valid: ["n1", "n[1-2]"], edge: ["n[1-4]"], invalid: ["n9", "bogus"] },
  "nodelist": { valid: ["n1", "n[1-2]", "n3"], edge: ["n[1-4]", "n1,n1"], invalid: ["n9", "bogus", "n[1-"] },
};

/** The grammar of one option, by name first, then by kind; unknown kinds get plain strings. */
export function grammarFor(name: string, argKind: string): Grammar {
  return BY_NAME[name] ?? BY_KIND[argKind] ?? BY_KIND[argKind.replace(/\(.*$/, "")] ?? STRING;
}

export interface Drawn {
  value: string;
  form: Form;
}

/** Draw one value: valid 60%, edge 25%, invalid 15% (a form the grammar lacks falls back to valid). */
export function drawValue(rng: Rng, g: Grammar): Drawn {
  const r = rng.next();
  const want: Form = r < 0.6 ? "valid" : r < 0.85 ? "edge" : "invalid";
  const list = g[want];
  if (list !== undefined && list.length > 0) return { value: rng.pick(list), form: want };
  const valid = g.valid ?? g.edge ?? g.invalid ?? ["x"];
  return { value: rng.pick(valid), form: "valid" };
}
