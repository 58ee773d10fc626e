/**
 * End-to-end checks of conformance details of srun, scontrol, sacct and salloc
 * (issue 3) that the differential suite compares with real Slurm: srun's
 * message port and the variables naming it, srun -o/-e file patterns,
 * `scontrol show step`, accounting of a running batch job and its step,
 * salloc's environment. Each test waits on conditions, never fixed sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "4", "--cpus-per-node", "4", "--mem-per-node", "4000"]);
});
afterAll(() => c?.down());

/** NAME=value lines of `printenv` output as a map. */
const envOf = (text: string): Record<string, string> =>
  Object.fromEntries(text.split("\n").filter((l) => l.includes("=")).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));

describe("srun's message port", () => {
  it("tasks see srun's listener address; every task the same one", () => {
    const r = c.run(["srun", "-N2", "-n2", "-l", "printenv"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const byTask = [0, 1].map((t) => envOf(r.stdout.split("\n").filter((l) => l.startsWith(`${t}: `)).map((l) => l.slice(3)).join("\n")));
    for (const env of byTask) {
      expect(env.SLURM_LAUNCH_NODE_IPADDR).toBe("127.0.0.1");
      expect(env.SLURM_SRUN_COMM_HOST).toBe("127.0.0.1");
      expect(env.SLURM_SRUN_COMM_PORT).toMatch(/^\d+$/);
      expect(env.SLURM_STEP_LAUNCHER_PORT).toBe(env.SLURM_SRUN_COMM_PORT);
    }
    expect(byTask[0]?.SLURM_SRUN_COMM_PORT).toBe(byTask[1]?.SLURM_SRUN_COMM_PORT);
  });

  it("the port is open while the step runs, and exit codes still reach srun", () => {
    // bash's /dev/tcp connects to the port srun named: it answers while the step runs
    const r = c.run(["srun", "bash", "-c", 'exec 3<>/dev/tcp/$SLURM_SRUN_COMM_HOST/$SLURM_SRUN_COMM_PORT && echo open; exit 6']);
    expect(r.stdout).toBe("open\n");
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/^srun: error: n\d: task 0: Exited with exit code 6$/m);
  });

  it("an srun inside a step gets its own port, not the outer one", () => {
    const r = c.run(["srun", "bash", "-c", 'echo $SLURM_SRUN_COMM_PORT; srun printenv SLURM_SRUN_COMM_PORT']);
    expect(r.code).toBe(0);
    const [outer, inner] = r.stdout.trim().split("\n");
    expect(outer).toMatch(/^\d+$/);
    expect(inner).toMatch(/^\d+$/);
    expect(inner).not.toBe(outer);
  });
});
