/**
 * @module tests/differential/queries
 * Query cases: scontrol, squeue, sacct, sinfo, scancel, sacctmgr and sshare with their
 * options in random order, spelled in random forms, and placed anywhere among the
 * sub-command words and operands (Slurm's getopt permutes, so an option after a
 * sub-command still counts). Every query is confined to what the case owns (its own held
 * job $J named $NAME) or to what does not move on a shared cluster (partitions, QOS, the
 * root account, stateless sinfo formats), so other users of the oracle cannot change it.
 */
import type { Rng } from "../../src/lib/rng.ts";

export type Tool = "scontrol" | "squeue" | "sacct" | "sinfo" | "scancel" | "sacctmgr" | "sshare";

export interface QueryCase {
  kind: "query";
  seed: number;
  tool: Tool;
  /** argv after the tool name; "$J" and "$NAME" are the case's held job and its name. */
  words: string[];
  /** A held job $J is submitted first. */
  needsJob: boolean;
  /** The job is cancelled and its accounting record awaited before the query (sacct). */
  afterEnd: boolean;
}

/** An option as argv words, in each spelling it may take. */
type Opt = string[][];

const flag = (...spellings: string[]): Opt => spellings.map((s) => [s]);
/** `-x V`, `-xV`, `--long=V`, `--long V`. */
const valued = (short: string, long: string, v: string): Opt => [
  ...(short === "" ? [] : [[short, v], [`${short}${v}`]]),
  [`${long}=${v}`],
  [long, v],
];

interface ToolSpec {
  /** Sub-command words and operands, in order (one list is chosen). */
  fixed: string[][];
  /** Options every case of the tool carries (confinement, stateless formats): one spelling each. */
  required: Opt[][];
  pool: Opt[];
  needsJob: boolean;
  afterEnd?: boolean;
}

const SQUEUE_FORMATS = [
  valued("-o", "--format", "%i %j %T %P %D %C %m %l"),
  valued("-o", "--format", "%.10i %.20j %.8t %r %Q"),
  valued("-O", "--Format", "JobID,Name,State,Partition,TimeLimit"),
  valued("-O", "--Format", "jobid:10,name:30,reason"),
];

const SPECS: Record<Tool, ToolSpec> = {
  scontrol: {
    fixed: [["show", "job", "$J"], ["show", "partition", "debug"], ["show", "partition"], ["update", "JobId=$J", "Comment=dt"], ["uhold", "$J"], ["hold", "$J"], ["show", "jobs", "$J"]],
    required: [],
    pool: [flag("-o", "--oneliner"), flag("-d", "--details"), flag("-Q", "--quiet"), flag("-a", "--all"), flag("--hide")],
    needsJob: true,
  },
  squeue: {
    fixed: [[]],
    required: [[valued("-j", "--jobs", "$J"), valued("-n", "--name", "$NAME")], SQUEUE_FORMATS],
    pool: [flag("-h", "--noheader"), flag("-l", "--long"), valued("-t", "--states", "PD"), valued("-t", "--states", "pending,running"),
      valued("-p", "--partition", "debug"), valued("-S", "--sort", "i"), flag("-a", "--all"), flag("-r", "--array"), valued("-u", "--user", "root"), flag("--me")],
    needsJob: true,
  },
  sacct: {
    fixed: [[]],
    required: [[valued("-j", "--jobs", "$J")]],
    pool: [flag("-X", "--allocations"), flag("-P", "--parsable2"), flag("-p", "--parsable"), flag("-n", "--noheader"), flag("--noconvert"),
      valued("-o", "--format", "JobID,JobName,State,Partition,Account"), valued("-o", "--format", "JobName,ReqCPUS,ReqMem,Timelimit,NNodes"),
      flag("-a", "--allusers"), valued("-s", "--state", "CA"), flag("-D", "--duplicates")],
    needsJob: true,
    afterEnd: true,
  },
  sinfo: {
    fixed: [[]],
    required: [[valued("-o", "--format", "%P %a %l %D %c %m %G"), valued("-o", "--format", "%P %N %c"), valued("-O", "--Format", "partition,cpus,memory,nodelist")]],
    pool: [valued("-p", "--partition", "debug"), valued("-p", "--partition", "gpu"), flag("-h", "--noheader"), flag("-e", "--exact"), valued("-S", "--sort", "P"),
      flag("-a", "--all"), valued("-n", "--nodes", "n[1-2]")],
    needsJob: false,
  },
  scancel: {
    fixed: [["$J"]],
    required: [],
    pool: [flag("-v", "--verbose"), flag("-Q", "--quiet"), valued("-n", "--name", "$NAME"), valued("-p", "--partition", "debug"), valued("-p", "--partition", "gpu"),
      valued("-t", "--state", "PENDING"), valued("-t", "--state", "RUNNING"), flag("-b", "--batch"), flag("-H", "--hurry"), valued("-s", "--signal", "KILL")],
    needsJob: true,
  },
  sacctmgr: {
    fixed: [["show", "qos", "normal", "format=Name,Priority,MaxWall"], ["list", "account", "root", "format=Account,Descr,Org"], ["show", "cluster", "format=Cluster"],
      ["show", "user", "root", "format=User,DefaultAccount,Admin"], ["show", "assoc", "where", "user=root", "format=Cluster,Account,User,Partition,Share"]],
    required: [],
    pool: [flag("-n", "--noheader"), flag("-P", "--parsable2"), flag("-p", "--parsable"), flag("-Q", "--quiet")],
    needsJob: false,
  },
  sshare: {
    fixed: [[]],
    required: [[valued("-o", "--format", "Account,User,RawShares,NormShares")]],
    pool: [valued("-u", "--users", "root"), valued("-A", "--accounts", "root"), flag("-h", "--noheader"), flag("-P", "--parsable2"), flag("-p", "--parsable")],
    needsJob: false,
  },
};

/** A query case: the tool's fixed words with required and random options spliced in anywhere. */
export function generateQuery(seed: number, rng: Rng): QueryCase {
  const tool = rng.pick(Object.keys(SPECS) as Tool[]);
  const spec = SPECS[tool];
  // units: an option's words stay together; fixed words keep their order
  const units: string[][] = rng.pick(spec.fixed).map((w) => [w]);
  const chosen: string[][] = spec.required.map((alts) => rng.pick(rng.pick(alts)));
  for (const opt of spec.pool) if (rng.next() < 0.3) chosen.push(rng.pick(opt));
  for (const opt of chosen) units.splice(rng.int(0, units.length), 0, opt);
  return { kind: "query", seed, tool, words: units.flat(), needsJob: spec.needsJob, afterEnd: spec.afterEnd === true };
}
