/**
 * @module sim/controller/generate
 * The commands of the controller simulation, drawn from a seeded Rng and the
 * current state: what users and admins do (submit, arrays included; cancel of a
 * job, one array task, a task range or a whole array; hold/release; updates; requeue;
 * suspend/resume; node down/drain/resume/fail/re-register; reservation create,
 * update and delete), what agents report (job ends), and what the leader's loops
 * issue (time limits). Scheduler decisions are made elsewhere (run.ts), from an
 * older snapshot. Only simulated time: `now` is a number the run advances.
 */
import type { Rng } from "../../../src/lib/rng.ts";
import type { Command, Requester } from "../../../src/sched/model/commands.ts";
import { emptyJobSpec } from "../../../src/sched/model/records.ts";
import type { ClusterState, JobRecord, JobSpecP } from "../../../src/sched/model/types.ts";
import { isJobFinished } from "../../../src/sched/model/types.ts";
import { ALICE, BOB, ROOT } from "./world.ts";

const USERS: Requester[] = [ROOT, ALICE, BOB];
const NODES = ["n1", "n2", "n3", "n4", "g1", "g2"];
const PARTITIONS = ["debug", "gpu", "small", ""];
const RESERVATIONS = ["r1", "r2"];

const filter = (jobIds: string[]) => ({ jobIds, user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" });

function randomSpec(rng: Rng, state: ClusterState, now: number): JobSpecP {
  const s: JobSpecP = { ...emptyJobSpec(), name: `j${rng.int(0, 9)}`, script: "#!/bin/sh\ntrue\n", workDir: "/tmp" };
  s.partition = rng.pick(PARTITIONS);
  s.ntasks = rng.int(1, 3);
  if (rng.next() < 0.3) s.cpusPerTask = rng.int(1, 2);
  if (rng.next() < 0.15) s.nodesMin = rng.int(1, 2);
  if (rng.next() < 0.3) {
    const hi = rng.int(0, 7);
    s.array = `0-${hi}${rng.next() < 0.3 ? `%${rng.int(1, 3)}` : ""}`;
  }
  if (rng.next() < 0.25) s.gresPerNode = [{ name: "gpu", type: "", count: rng.int(1, 2) }];
  if (rng.next() < 0.15) s.hold = true;
  if (rng.next() < 0.1) s.nodelist = rng.pick(NODES);
  if (rng.next() < 0.1) s.exclude = rng.pick(NODES);
  if (rng.next() < 0.7) s.timeLimitMin = rng.int(1, 20);
  if (rng.next() < 0.1) s.reservation = rng.pick(RESERVATIONS);
  if (rng.next() < 0.1) s.beginTime = now + rng.int(0, 30);
  const ids = [...state.jobs.keys()];
  if (ids.length > 0 && rng.next() < 0.15) s.dependency = `${rng.pick(["afterok", "afterany", "afternotok"])}:${rng.pick(ids)}`;
  if (rng.next() < 0.1) s.killOnInvalidDep = true;
  return s;
}

/** An id text naming some job: plain, one array task, a task range, or an unknown id. */
function idText(rng: Rng, state: ClusterState): string {
  const jobs = [...state.jobs.values()];
  if (jobs.length === 0 || rng.next() < 0.03) return String(state.nextJobId + rng.int(0, 3));
  const job = rng.pick(jobs);
  const i = job.info;
  if (i.arrayJobId === 0) return String(i.jobId);
  const r = rng.next();
  if (r < 0.3) return String(i.arrayJobId);
  if (r < 0.8) return `${i.arrayJobId}_${job.arrayPending.length > 0 && rng.next() < 0.8 ? rng.pick(job.arrayPending) : rng.int(0, 7)}`;
  const lo = rng.int(0, 6);
  return `${i.arrayJobId}_[${lo}-${lo + rng.int(0, 3)}]`;
}

const running = (state: ClusterState): JobRecord[] => [...state.jobs.values()].filter((j) => j.info.state === "RUNNING");

/** One user, admin, agent or loop command, or undefined when the draw found nothing to do. */
export function userCommand(rng: Rng, state: ClusterState, now: number): Command | undefined {
  const by = rng.pick(USERS);
  const r = rng.int(0, 99);
  if (r < 22) return { v: 1, type: "submit", at: now, spec: randomSpec(rng, state, now), by, priority: 0 };
  if (r < 40) {
    const ids = Array.from({ length: rng.int(1, 2) }, () => idText(rng, state));
    return { v: 1, type: "cancel", at: now, filter: filter(ids), signal: 0, batchOnly: false, by: rng.next() < 0.8 ? ROOT : by };
  }
  if (r < 50) {
    const action = rng.pick(["hold", "uhold", "release", "release", "requeue", "requeuehold", "suspend", "resume"]);
    return { v: 1, type: "updateJob", at: now, jobIds: [idText(rng, state)], action, fields: {}, by: rng.next() < 0.8 ? ROOT : by };
  }
  if (r < 58) {
    const fields = rng.pick<Record<string, string>>([
      { Partition: rng.pick(["debug", "gpu", "small"]) }, { NumNodes: String(rng.int(1, 3)) }, { NumTasks: String(rng.int(1, 6)) },
      { ExcNodeList: rng.pick(NODES) }, { ReqNodeList: rng.pick(NODES) }, { TimeLimit: String(rng.int(1, 30)) },
      { ArrayTaskThrottle: String(rng.int(0, 3)) }, { Dependency: "" }, { Priority: String(rng.int(0, 3)) }, { Nice: String(rng.int(0, 50)) },
    ]);
    return { v: 1, type: "updateJob", at: now, jobIds: [idText(rng, state)], action: "update", fields, by: ROOT };
  }
  if (r < 72) {
    const job = rng.pick([...running(state), undefined]);
    if (job === undefined) return undefined;
    const outcome = rng.pick(["COMPLETED", "COMPLETED", "FAILED", "NODE_FAIL", "LAUNCH_FAILED", "CANCELLED"]);
    // The run it reports (as agents send it; some without, as older agents): delayed past a requeue and restart, it is stale.
    const run = job.info.jobId % 4 === 0 ? {} : { restarts: job.info.restarts };
    return { v: 1, type: "jobEnded", at: now, jobId: job.info.jobId, exitCode: outcome === "COMPLETED" ? 0 : 1, exitSignal: 0, outcome, ...run };
  }
  if (r < 76) {
    const job = rng.pick([...running(state), undefined]);
    return job === undefined ? undefined : { v: 1, type: "timeLimitReached", at: now, jobId: job.info.jobId };
  }
  if (r < 88) return nodeCommand(rng, state, now);
  if (r < 94) return reservationCommand(rng, now);
  if (r < 97) {
    const job = rng.pick([...state.jobs.values(), undefined]);
    if (job === undefined) return undefined;
    return rng.next() < 0.5
      ? { v: 1, type: "deadlineExpired", at: now, jobIds: [job.info.jobId] }
      : { v: 1, type: "dependencyNeverSatisfied", at: now, jobIds: [job.info.jobId] };
  }
  const job = rng.pick([...running(state), undefined]);
  if (job === undefined || isJobFinished(job.info)) return undefined;
  return { v: 1, type: "launchFailed", at: now, jobId: job.info.jobId, node: job.info.batchHost, reason: "sim", restarts: job.info.restarts };
}

function nodeCommand(rng: Rng, state: ClusterState, now: number): Command {
  const name = rng.pick(NODES);
  const r = rng.int(0, 9);
  if (r < 2) return { v: 1, type: "nodeFail", at: now, node: name, reason: "Not responding" };
  if (r < 5) {
    const node = state.nodes.get(name);
    return { v: 1, type: "registerNode", at: now, node: { ...structuredClone(node?.info ?? { name }), addr: "127.0.0.1" } as never, runningJobIds: [] };
  }
  const wanted = rng.pick(["DOWN", "DRAIN", "RESUME", "RESUME", "IDLE"]);
  return { v: 1, type: "updateNode", at: now, nodes: [name], state: wanted, reason: "sim", by: ROOT };
}

function reservationCommand(rng: Rng, now: number): Command {
  const name = rng.pick(RESERVATIONS);
  const action = rng.pick<"create" | "update" | "delete">(["create", "create", "update", "delete"]);
  const fields: Record<string, string> = action === "delete" ? {} : {
    StartTime: String(now + rng.int(-5, 20)), Duration: String(rng.int(1, 30)), Nodes: rng.pick(NODES), Users: rng.pick(["alice", "root", "bob"]),
  };
  if (action !== "delete" && rng.next() < 0.2) fields.Flags = "MAINT";
  return { v: 1, type: "reservation", at: now, action, name, fields, by: ROOT };
}
