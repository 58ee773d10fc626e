/**
 * End-to-end on the cgroup v2 code path (CgroupPlugin=cgroup/v2), run on
 * whatever cgroup2 tree the host mounts (on a hybrid host, the unified tree
 * without controllers: tracking, cgroup.kill, CPU accounting and the BPF
 * device filter still apply; memory and cpuset limits need a pure v2 host).
 * Skips, saying why, when there is no cgroup2 mount or no root.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { startCluster, eventually, jobState, type Cluster } from "./cluster.ts";
import { parseMountinfo } from "../../src/agent/cgroup/layout.ts";

const v2 = parseMountinfo(readFileSync("/proc/self/mountinfo", "utf8")).find((m) => m.fsType === "cgroup2");
const usable = process.getuid?.() === 0 && v2 !== undefined;
let c: Cluster;
let gpuDir = "";
let containment = "";

beforeAll(() => {
  if (!usable) {
    console.warn("cgroup v2 tests skipped: needs root and a cgroup2 mount");
    return;
  }
  c = startCluster(["--nodes", "1", "--cpus-per-node", "2", "--mem-per-node", "2000", "--gpus-per-node", "2", "--gpu-model", "fake"], {
    beforeUp(state, dir) {
      gpuDir = join(dir, "dev");
      spawnSync("mkdir", ["-p", gpuDir]);
      for (let i = 0; i < 2; i++) spawnSync("mknod", ["-m", "666", join(gpuDir, `fakegpu${i}`), "c", "242", String(10 + i)]);
      spawnSync("sh", ["-c", `cat > ${state}/gres.conf`], { input: `Name=gpu Type=fake File=${gpuDir}/fakegpu[0-1]\n` });
    },
  });
  c.reconfigure("CgroupPlugin=cgroup/v2\n");
}, 120_000);

afterAll(() => c?.down());

const submit = (args: string[]) => c.run(["sbatch", "--parsable", ...args]).stdout.trim();
const ended = (id: string) =>
  eventually(`job ${id} ended`, () => (["COMPLETED", "FAILED", "CANCELLED"].includes(jobState(c, id)) ? jobState(c, id) : undefined), 60_000);

describe.skipIf(!usable)("cgroup v2 containment", () => {
  it("says cgroup/v2 and puts the job in its v2 cgroup", async () => {
    // The restarted spurd registers again with what it detected.
    containment = await eventually("n1 reports cgroup/v2", () => {
      const v = /Containment=(.*)$/m.exec(c.run(["scontrol", "-d", "show", "node", "n1"]).stdout)?.[1] ?? "";
      return v.startsWith("cgroup/v2") ? v : undefined;
    });
    expect(containment).toMatch(/^cgroup\/v2/);
    c.write("where.sh", "#!/bin/bash\ngrep '^0::' /proc/self/cgroup\n");
    const id = submit(["where.sh"]);
    await ended(id);
    expect(readFileSync(join(c.work, `slurm-${id}.out`), "utf8")).toMatch(new RegExp(`^0::.*/spur_[0-9a-f]+/job_${id}/step_batch\\n$`));
  });

  it("refuses the GPUs a job was not given (BPF device filter)", async () => {
    c.write("g.sh", `#!/bin/bash\necho "vis=$CUDA_VISIBLE_DEVICES job=$SLURM_JOB_GPUS"\nfor i in 0 1; do echo "gpu$i: $(head -c1 ${gpuDir}/fakegpu$i 2>&1 | sed 's/.*: //')"; done\n`);
    const id = submit(["--gres=gpu:1", "g.sh"]);
    await ended(id);
    const out = readFileSync(join(c.work, `slurm-${id}.out`), "utf8");
    const mine = Number(/job=(\d)/.exec(out)?.[1]);
    expect(out).toContain("vis=0 ");
    for (const i of [0, 1]) expect(out).toContain(`gpu${i}: ${i === mine ? "No such device or address" : "Operation not permitted"}`);
  });

  it("kills a double-forked daemon when the job ends, and leaves no cgroup behind", async () => {
    c.write("d.sh", "#!/bin/bash\nsetsid sleep 1000 & echo $! > v2pid.$SLURM_JOB_ID\nsleep 1\n");
    const id = submit(["d.sh"]);
    await ended(id);
    const pid = Number(readFileSync(join(c.work, `v2pid.${id}`), "utf8"));
    await eventually("daemon gone", () => (existsSync(`/proc/${pid}`) && !/State:\s+Z/.test(readFileSync(`/proc/${pid}/status`, "utf8")) ? undefined : true));
    c.down();
    const left = readdirSync(v2?.mountPoint ?? "/").filter((n) => n.startsWith("spur_"));
    const ours = left.filter((n) => existsSync(join(v2?.mountPoint ?? "/", n, `job_${id}`)));
    expect(ours).toEqual([]);
  });
});
