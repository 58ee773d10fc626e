/**
 * End-to-end: preemption (partition_prio, REQUEUE, GraceTime) and
 * reservations on a real local cluster. A job in a higher-tier partition
 * preempts a running job, which is signalled by its agent and comes back
 * PENDING with a restart counted while the preemptor runs; a reservation made
 * with scontrol is listed by scontrol and sinfo -T and its job runs on its node.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "2", "--mem-per-node", "2000"]);
  c.reconfigure("PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\nPartitionName=high Nodes=ALL PriorityTier=2 GraceTime=2\n");
});
afterAll(() => c?.down());

const sbatch = (args: string[]): string => {
  const r = c.run(["sbatch", "--parsable", ...args]);
  expect(r.stderr).toBe("");
  return r.stdout.trim();
};
const stateOf = (id: string): string => c.run(["squeue", "-h", "-j", id, "-o", "%T"]).stdout.trim();

describe("preemption and reservations", () => {
  it("requeues a lower-tier job for a higher-tier one", { timeout: 150_000 }, async () => {
    const low = [sbatch(["-n2", "-t", "10", "--wrap", "sleep 300"]), sbatch(["-n2", "-t", "10", "--wrap", "sleep 300"])];
    await eventually("low jobs running", () => (low.every((id) => stateOf(id) === "RUNNING") ? true : undefined), 60_000);
    const high = sbatch(["-p", "high", "-n2", "-t", "5", "--wrap", "sleep 30"]);
    await eventually("preemptor running", () => (stateOf(high) === "RUNNING" ? true : undefined), 60_000);
    const states = low.map(stateOf);
    expect([...states].sort()).toEqual(["PENDING", "RUNNING"]);
    const victim = low[states.indexOf("PENDING")] as string;
    expect(c.run(["scontrol", "show", "job", victim]).stdout).toMatch(/Restarts=1 /);
    c.run(["scancel", ...low, high]);
  });

  it("creates, lists, uses and deletes a reservation", { timeout: 150_000 }, async () => {
    const made = c.run(["scontrol", "create", "reservation", "StartTime=now", "Duration=10", "Users=root", "Nodes=n1"]);
    expect(made.stdout).toBe("Reservation created: root_1\n");
    const show = c.run(["scontrol", "show", "reservation"]).stdout;
    expect(show).toMatch(/^ReservationName=root_1 StartTime=\S+ EndTime=\S+ Duration=00:10:00\n {3}Nodes=n1 NodeCnt=1 CoreCnt=2 /);
    expect(show).toContain("State=ACTIVE");
    expect(c.run(["sinfo", "-T", "-h"]).stdout).toMatch(/^root_1 +ACTIVE .* n1\n$/);
    expect(c.run(["sbatch", "--reservation=nope", "--wrap", "true"]).stderr).toContain("Requested reservation is invalid");
    const id = sbatch(["--reservation=root_1", "-t", "2", "--wrap", "sleep 20"]);
    await eventually("reservation job running", () => (stateOf(id) === "RUNNING" ? true : undefined), 90_000).catch((e) => {
      throw new Error(`${String(e)}\n${c.run(["squeue", "-o", "%i %P %T %r %N"]).stdout}`);
    });
    expect(c.run(["squeue", "-h", "-j", id, "-o", "%N"]).stdout.trim()).toBe("n1");
    c.run(["scancel", id]);
    expect(c.run(["scontrol", "delete", "ReservationName=root_1"]).code).toBe(0);
    expect(c.run(["scontrol", "show", "reservation"]).stdout).toBe("No reservations in the system\n");
  });
});
