/**
 * The submit side of heterogeneous jobs: ":" on the command line and "#SBATCH hetjob" /
 * "packjob" in the script split the request into components; each component starts from
 * what the previous one carried over (job name, account, time...), never its resources.
 */
import { describe, expect, it } from "vitest";
import { componentRequests, splitComponents } from "../../../src/compat/options/het-components.ts";
import { sbatchRequests } from "../../../src/compat/options/sbatch-flow.ts";
import { scanDirectives } from "../../../src/compat/options/script-directives.ts";
import type { Built } from "../../../src/compat/options/build-spec.ts";
import { parseSallocArgs, parseSrunArgs } from "../../../src/compat/options/interactive-args.ts";
import { hetSallocEnv } from "../../../src/compat/het-env.ts";

const CTX = { cmd: "sbatch" as const, argv: [], env: {}, invoker: { cwd: "/home/a", hostname: "login" }, now: 0 };
const script = (text: string) => ({ text, from: "file" as const, path: "job.sh", args: [] });

function requests(argv: string[], text = "#!/bin/sh\ntrue\n", env: Record<string, string> = {}): Built[] {
  const split = splitComponents("sbatch", argv);
  if (!split.ok) throw new Error(split.error.message);
  const r = sbatchRequests({ ...CTX, argv, env }, split.value.components, script(text));
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe("splitComponents", () => {
  it("splits at each lone ':' and keeps the operands after the last component", () => {
    const r = splitComponents("sbatch", ["-n1", "-p", "a", ":", "-n2", ":", "-N", "3", "job.sh", "x", ":"]);
    expect(r.ok && r.value.components.map((c) => c.map((o) => `${o.def.name}=${o.value}`))).toEqual([
      ["ntasks=1", "partition=a"], ["ntasks=2"], ["nodes=3"],
    ]);
    // a ':' after the script is the script's argument
    expect(r.ok && r.value.operands).toEqual(["job.sh", "x", ":"]);
  });

  it("an ordinary command line is one component", () => {
    const r = splitComponents("sbatch", ["-n1", "job.sh"]);
    expect(r.ok && [r.value.components.length, r.value.operands]).toEqual([1, ["job.sh"]]);
  });

  it("getopt errors in any component are sbatch's", () => {
    const r = splitComponents("sbatch", ["-n1", ":", "--bogus", "job.sh"]);
    expect(r.ok ? "" : r.error.message).toContain("sbatch: unrecognized option '--bogus'");
  });
});

describe("#SBATCH hetjob blocks", () => {
  it("hetjob and packjob start a new component's block", () => {
    const d = scanDirectives("#!/bin/sh\n#SBATCH -n 1 -J a\n#SBATCH hetjob\n#SBATCH -n 2\n#SBATCH packjob\n#SBATCH -N 3\ntrue\n");
    expect(d.blocks).toEqual([["-n", "1", "-J", "a"], ["-n", "2"], ["-N", "3"]]);
  });

  it("a script with blocks gives one request per block", () => {
    const r = requests([], "#!/bin/sh\n#SBATCH -n 1 -p p0 -J named -t 5\n#SBATCH hetjob\n#SBATCH -n 2\ntrue\n");
    expect(r.map((b) => [b.spec.ntasks, b.spec.partition, b.spec.name, b.spec.timeLimitMin])).toEqual([
      [1, "p0", "named", 5],
      // the name and time carry over; the partition and task count do not (Slurm's reset_each_pass)
      [2, "", "named", 5],
    ]);
  });

  it("blocks and command-line components pair up by index, the command line winning", () => {
    const r = requests(["-n", "4", ":", "-p", "p1", "job.sh"], "#!/bin/sh\n#SBATCH -n 1\n#SBATCH hetjob\n#SBATCH -n 2 -p p9\ntrue\n");
    expect(r.map((b) => [b.spec.ntasks, b.spec.partition])).toEqual([[4, ""], [2, "p1"]]);
  });

  it("a command line without ':' applies to every block of the script (oracle)", () => {
    const r = requests(["-c", "2", "-p", "gpu", "job.sh"], "#!/bin/sh\n#SBATCH -n 1\n#SBATCH hetjob\n#SBATCH -n 2\ntrue\n");
    expect(r.map((b) => [b.spec.ntasks, b.spec.cpusPerTask, b.spec.partition])).toEqual([[1, 2, "gpu"], [2, 2, "gpu"]]);
  });

  it("an ordinary script stays one request", () => {
    expect(requests(["-n", "3"]).map((b) => b.spec.ntasks)).toEqual([3]);
  });

  it("input variables apply to every component", () => {
    const r = requests(["-n1", ":", "-n2"], undefined, { SBATCH_ACCOUNT: "acct" });
    expect(r.map((b) => b.spec.account)).toEqual(["acct", "acct"]);
  });
});

describe("componentRequests", () => {
  it("carries the propagated options only", () => {
    const a = splitComponents("sbatch", ["-J", "x", "-A", "acc", "-c", "2", "--mem=100", "-C", "f", ":", "-n1"]);
    if (!a.ok) throw new Error("parse");
    const r = componentRequests(CTX, [], a.value.components, script("#!/bin/sh\n"));
    if (!r.ok) throw new Error(r.error.message);
    const second = r.value[1]?.spec;
    // oracle (22.05): --mem carries over, -c and -C do not
    expect([second?.name, second?.account, second?.cpusPerTask, second?.memPerNodeMib, second?.constraint]).toEqual(["x", "acc", 0, 100, ""]);
  });
});

describe("salloc and srun with ':'", () => {
  const CTX2 = { invoker: { cwd: "/home/a", hostname: "login" }, now: 0 };
  it("salloc A : B is one request per component, the command after the last", () => {
    const r = parseSallocArgs(["-J", "x", "-n1", ":", "-N2", "bash"], {}, CTX2);
    if (!r.ok || r.value.kind !== "run") throw new Error("parse");
    expect([r.value.spec.ntasks, r.value.het?.map((h) => [h.nodesMin, h.name]), r.value.command]).toEqual([1, [[2, "x"]], ["bash"]]);
  });

  it("srun splits its command line at every lone ':' (oracle: `srun -n1 echo :` is 'srun: fatal: No command given to execute.')", () => {
    expect(parseSrunArgs(["-n1", "echo", ":"], {}, CTX2)).toMatchObject({ ok: false, error: { message: "No command given to execute." } });
    const r = parseSrunArgs(["-n1", "echo", "a", ":", "b"], {}, CTX2);
    expect(r.ok && r.value.kind === "run" ? [r.value.command, r.value.hetCommands] : []).toEqual([["echo", "a"], [["b"]]]);
  });

  it("salloc's het shell (oracle, `salloc -n1 : -N2`): the leader's SLURM_JOB_ID and site variables, every component's job variables suffixed", () => {
    const env = hetSallocEnv({ HOME: "/h" }, [
      { SLURM_JOB_ID: "5", SLURM_NNODES: "1", SLURM_CONF: "/c", SLURM_JOB_UID: "0" },
      { SLURM_JOB_ID: "6", SLURM_NNODES: "2", SLURM_CONF: "/c" },
    ]);
    expect(env).toEqual({
      HOME: "/h", SLURM_JOB_ID: "5", SLURM_CONF: "/c",
      SLURM_JOB_ID_PACK_GROUP_0: "5", SLURM_JOB_ID_HET_GROUP_0: "5", SLURM_NNODES_PACK_GROUP_0: "1", SLURM_NNODES_HET_GROUP_0: "1",
      SLURM_JOB_ID_PACK_GROUP_1: "6", SLURM_JOB_ID_HET_GROUP_1: "6", SLURM_NNODES_PACK_GROUP_1: "2", SLURM_NNODES_HET_GROUP_1: "2",
      SLURM_PACK_SIZE: "2", SLURM_HET_SIZE: "2",
    });
  });
});
