/**
 * End-to-end task layout (issue 21, issue 15's node counts) on the real binary, a cluster of
 * the oracle's shape (4 nodes of 4 CPUs): a sample of the generated cases recorded from Slurm
 * 22.05 (tests/fixtures/layout/oracle-layout.tsv) submitted held and read back with scontrol,
 * and asked with --test-only; srun's layouts across nodes as the oracle ran them
 * (tests/fixtures/layout/steps.txt): -n5 over two nodes, -N2 -n4 as 3+1, --overcommit, node
 * ranges, steps inside an allocation and Slurm's refusal of a step with too few CPUs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "4", "--cpus-per-node", "4", "--mem-per-node", "4000", "--gpus-per-node", "0"]);
});
afterAll(() => c?.down());

interface Row {
  args: string[];
  stderr: string;
  fields: Record<string, string>;
  testOnly: string;
}

const FIELDS = ["NumNodes", "NumCPUs", "NumTasks", "CPUs/Task", "MinCPUsNode"];

function fixtureRows(): Row[] {
  const lines = readFileSync(join(__dirname, "../fixtures/layout/oracle-layout.tsv"), "utf8").split("\n").filter((l) => l !== "" && !l.startsWith("#"));
  const header = (lines.shift() ?? "").split("\t");
  return lines.map((line) => {
    const cells = line.split("\t");
    const get = (name: string): string => cells[header.indexOf(name)] ?? "";
    return { args: get("args").split(" "), stderr: get("stderr"), fields: Object.fromEntries(FIELDS.map((f) => [f, get(f)])), testOnly: get("test_only") };
  });
}

/**
 * The rows Slurm places (refusals are the unit test's: a held refusal and --test-only's
 * "allocation failure" wording are issue 15's --hold/--test-only item): the first 17 rows (the
 * cases the issues name) and every 7th generated one.
 */
const SAMPLE = fixtureRows().filter((r, i) => (i < 17 || i % 7 === 0) && /^\d+$/.test(r.testOnly) && r.args.join(" ") !== "-n1 -c2");

const field = (text: string, name: string): string => new RegExp(`(?:^|\\s)${name.replace("/", "\\/")}=(\\S*)`).exec(text)?.[1] ?? "?";

describe("held submissions and --test-only, against the oracle's records", () => {
  it.each(SAMPLE.map((r) => [r.args.join(" "), r] as const))("sbatch %s", (_name, row) => {
    const sub = c.run(["sbatch", "--hold", "--parsable", ...row.args, "--wrap=true"]);
    expect(sub.code, sub.stderr).toBe(0);
    expect(sub.stderr.trim()).toBe(row.stderr.replace(/\\n/g, "\n"));
    const id = sub.stdout.trim();
    const show = c.run(["scontrol", "-o", "show", "job", id]).stdout;
    c.run(["scancel", id]);
    expect(Object.fromEntries(FIELDS.map((f) => [f, field(show, f)]))).toEqual(row.fields);
    const test = c.run(["sbatch", "--test-only", ...row.args, "--wrap=true"]);
    expect(test.stderr).toMatch(new RegExp(`using ${row.testOnly} processors on nodes n`));
  });
});

/** "node tasks-per-node" of every task, sorted. */
function tasksOf(args: string[]): { lines: string[]; code: number; stderr: string } {
  const r = c.run(["srun", ...args, "bash", "-c", "echo $SLURMD_NODENAME $SLURM_TASKS_PER_NODE"]);
  return { lines: r.stdout.split("\n").filter(Boolean).sort(), code: r.code, stderr: r.stderr };
}

describe("srun's own allocations spread as Slurm's do", () => {
  it("-n5 (no -N) runs 4 tasks on one node and 1 on another", () => {
    const r = tasksOf(["-n5"]);
    expect(r.code, r.stderr).toBe(0);
    expect(new Set(r.lines.map((l) => l.split(" ")[1]))).toEqual(new Set(["4,1"]));
    expect(new Set(r.lines.map((l) => l.split(" ")[0])).size).toBe(2);
  });

  it("-N2 -n4 runs 3 + 1 (the oracle's SLURM_TASKS_PER_NODE=3,1)", () => {
    const r = tasksOf(["-N2", "-n4"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.lines.map((l) => l.split(" ")[1])).toEqual(["3,1", "3,1", "3,1", "3,1"]);
  });

  it("--overcommit puts -n5 on one node, one CPU", () => {
    const r = tasksOf(["-n5", "-O"]);
    expect(r.code, r.stderr).toBe(0);
    expect(new Set(r.lines)).toEqual(new Set([r.lines[0]]));
    expect(r.lines[0]?.split(" ")[1]).toBe("5");
  });

  it("--overcommit beyond the partition's CPUs: -n20 -O runs on one node (the oracle: NumNodes=5 pending, then 1 node, 1 CPU)", () => {
    const r = tasksOf(["-n20", "-O"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.lines).toHaveLength(20);
    expect(new Set(r.lines)).toEqual(new Set([r.lines[0]]));
  });

  it("-N1-3 -n5 takes the range's top: three nodes", () => {
    const r = tasksOf(["-N1-3", "-n5"]);
    expect(r.code, r.stderr).toBe(0);
    expect(new Set(r.lines.map((l) => l.split(" ")[0])).size).toBe(3);
  });

  it("-N5 -n3 lowers the node count with Slurm's warning", () => {
    const r = tasksOf(["-N5", "-n3"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("srun: Warning: can't run 3 processes on 5 nodes, setting nnodes to 3\n");
    expect(new Set(r.lines.map((l) => l.split(" ")[0])).size).toBe(3);
  });
});

describe("SLURM_HOSTFILE", () => {
  it("task i runs on the file's host i (oracle: n2 n2 n1 n3 -> SLURM_TASKS_PER_NODE=1,2,1 on n[1-3])", () => {
    const file = c.write("hosts", "n2\nn2\nn1\nn3\n");
    const r = spawnSync("srun", ["-m", "arbitrary", "bash", "-c", "echo $SLURM_PROCID $SLURMD_NODENAME $SLURM_TASKS_PER_NODE $SLURM_NODELIST"], {
      env: { ...c.env, SLURM_HOSTFILE: file }, cwd: c.work, encoding: "utf8", timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect((r.stdout ?? "").split("\n").filter(Boolean).sort()).toEqual(["0 n2 1,2,1 n[1-3]", "1 n2 1,2,1 n[1-3]", "2 n1 1,2,1 n[1-3]", "3 n3 1,2,1 n[1-3]"]);
  });
});

describe("steps inside an allocation (oracle: tests/fixtures/layout/steps.txt)", () => {
  it("concurrent --exclusive steps take CPUs no other one holds, so they spread over the nodes (oracle: n1 n1 n2)", async () => {
    const script = c.write("excl.sh", [
      "#!/bin/bash",
      "for i in 1 2 3; do srun --exclusive -n1 bash -c 'echo $SLURMD_NODENAME; sleep 3' & done; wait",
    ].join("\n"));
    const sub = c.run(["sbatch", "--parsable", "-N2", "-n8", "-o", "excl.out", script]);
    expect(sub.code, sub.stderr).toBe(0);
    const { jobEnded } = await import("./cluster.ts");
    await jobEnded(c, sub.stdout.trim());
    const out = readFileSync(join(c.work, "excl.out"), "utf8").split("\n").filter((l) => /^n\d$/.test(l));
    expect(out).toHaveLength(3);
    expect(new Set(out).size).toBe(2);
  });

  it("a step whose CPUs other steps hold waits and says so as Slurm does; --immediate and Ctrl-C give up (oracle jobs 215, 260, 300, 301)", async () => {
    const script = c.write("busy.sh", [
      "#!/bin/bash",
      "hold() { rm -f started; srun \"$@\" bash -c 'touch started; sleep 3' & until [ -e started ]; do sleep 0.1; done; }",
      "echo '== exclusive'; hold --exclusive -n2; srun --exclusive -n1 bash -c 'echo second $SLURMD_NODENAME' 2>&1; echo rc=$?; wait",
      "echo '== after plain'; hold -n1; srun --exclusive -n1 bash -c 'echo third' 2>&1; wait",
      "echo '== immediate'; hold --exclusive -n2; srun --immediate --exclusive -n1 true 2>&1; echo rc=$?; wait",
      "echo '== interrupted'; hold --exclusive -n2; timeout --preserve-status -s INT 1 srun --exclusive -n1 true 2>&1; echo rc=$?; wait",
      "echo '== quiet'; hold --exclusive -n2; srun -Q --exclusive -n1 bash -c 'echo fourth' 2>&1; wait",
    ].join("\n"));
    const sub = c.run(["sbatch", "--parsable", "-n2", "-o", "busy.out", script]);
    expect(sub.code, sub.stderr).toBe(0);
    const id = sub.stdout.trim();
    const { jobEnded } = await import("./cluster.ts");
    await jobEnded(c, id);
    const waited = [`srun: Job ${id} step creation temporarily disabled, retrying (Requested nodes are busy)`, `srun: Step created for job ${id}`];
    expect(readFileSync(join(c.work, "busy.out"), "utf8").split("\n")).toEqual([
      "== exclusive", ...waited, "second n1", "rc=0",
      "== after plain", ...waited, "third",
      "== immediate", `srun: error: Unable to create step for job ${id}: Requested nodes are busy`, "rc=1",
      "== interrupted", "srun: Cancelled pending job step with signal 2", `srun: error: Unable to create step for job ${id}: Job/step already completing or completed`, "rc=1",
      "== quiet", "fourth", "",
    ]);
  });

  it("deal tasks within each node's CPUs and refuse more without --overcommit", async () => {
    const script = c.write("steps.sh", [
      "#!/bin/bash",
      "p() { echo \"== $*\"; srun \"$@\" bash -c 'echo $SLURMD_NODENAME $SLURM_TASKS_PER_NODE' 2>&1 | sort; }",
      "p -n4", "p -N2 -n3", "p -n9", "p -n9 -O", "p -n5 -c2",
    ].join("\n"));
    const sub = c.run(["sbatch", "--parsable", "-N2", "-n8", "-o", "steps.out", script]);
    expect(sub.code, sub.stderr).toBe(0);
    const id = sub.stdout.trim();
    const { jobEnded } = await import("./cluster.ts");
    await jobEnded(c, id);
    const out = readFileSync(join(c.work, "steps.out"), "utf8");
    const section = (name: string): string[] => (out.split(`== ${name}\n`)[1] ?? "").split("== ")[0]?.split("\n").filter(Boolean) ?? [];
    expect(section("-n4").map((l) => l.split(" ")[1])).toEqual(["2(x2)", "2(x2)", "2(x2)", "2(x2)"]);
    expect(section("-N2 -n3").map((l) => l.split(" ")[1])).toEqual(["2,1", "2,1", "2,1"]);
    expect(section("-n9")).toEqual([`srun: error: Unable to create step for job ${id}: More processors requested than permitted`]);
    expect(new Set(section("-n9 -O").map((l) => l.split(" ")[1]))).toEqual(new Set(["5,4"]));
    expect(section("-n5 -c2")).toEqual([`srun: error: Unable to create step for job ${id}: More processors requested than permitted`]);
  });
});
