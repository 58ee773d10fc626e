/**
 * The clients' -w / -N / SLURM_HOSTFILE rules, as Slurm 22.05's clients gave them (run with
 * the oracle's slurm.conf; these checks happen before any controller is asked):
 * `sbatch|salloc -N1 -w n[1-2]` → "error: invalid number of nodes (-N 2-1)", exit 1;
 * `srun -N1 -w n[1-2]` → "error: Required nodelist includes more nodes than permitted by
 * max-node count (2 > 1). Eliminating nodes from the nodelist." and goes on; a list with a
 * repeat counts each node once (`-N1 -w n[1,1]` is fine). sbatch reads SLURM_HOSTFILE.
 */
import { describe, expect, it } from "vitest";
import { sbatchMain } from "../../../src/cli/sbatch.ts";
import { parseSallocArgs, parseSrunArgs } from "../../../src/compat/options/interactive-args.ts";
import { fakePort } from "./helpers.ts";

const ctx = { invoker: { cwd: "/tmp", hostname: "vm", umask: 0o22 }, now: 0 };

describe("-w naming more nodes than -N allows", () => {
  it.each([
    [["-N1", "-w", "n[1-2]"], "invalid number of nodes (-N 2-1)"],
    [["-N1-2", "-w", "n[1-3]"], "invalid number of nodes (-N 3-2)"],
  ])("sbatch %j is refused", async (argv, text) => {
    const f = fakePort();
    const r = await sbatchMain([...argv, "--wrap=true"], f.port);
    expect([r.exitCode, r.stderr, f.submitted.length]).toEqual([1, `sbatch: error: ${text}\n`, 0]);
  });

  it("sbatch accepts a list within -N, and a repeat counts once", async () => {
    for (const argv of [["-N3", "-w", "n[1-2]"], ["-N1", "-w", "n[1,1]"], ["-N2-4", "-w", "n[1-3]"]]) {
      const f = fakePort();
      const r = await sbatchMain([...argv, "--wrap=true"], f.port);
      expect([r.exitCode, r.stderr], argv.join(" ")).toEqual([0, ""]);
    }
  });

  it.each([
    [["-w", "n[1-3]", "-n1"], 1, "n1"],
    [["-w", "n3,n1,n2", "-n2"], 2, "n[1-2]"],
  ])("sbatch %j without -N: Slurm's warning, the node count lowered to the tasks, the sorted list cut (oracle 22.05)", async (argv, n, list) => {
    const f = fakePort();
    const r = await sbatchMain([...argv, "--wrap=true"], f.port);
    expect([r.exitCode, r.stderr]).toEqual([0, `sbatch: Warning: can't run ${n} processes on 3 nodes, setting nnodes to ${n}\n`]);
    expect(f.submitted[0]?.spec).toMatchObject({ nodesMin: n, nodesMax: n, nodelist: list });
  });

  it("sbatch -w with as many tasks as nodes, or -N, is left alone", async () => {
    for (const argv of [["-w", "n[1-2]", "-n2"], ["-w", "n[1-2]"], ["-N2", "-w", "n[1-2]", "-n4"]]) {
      const f = fakePort();
      const r = await sbatchMain([...argv, "--wrap=true"], f.port);
      expect([r.stderr, f.submitted[0]?.spec?.nodelist], argv.join(" ")).toEqual(["", "n[1-2]"]);
    }
  });

  it("salloc is refused the same way", () => {
    const r = parseSallocArgs(["-N1", "-w", "n[1-2]", "true"], {}, ctx);
    expect(r.ok ? "" : r.error.message).toBe("invalid number of nodes (-N 2-1)");
  });

  it("srun keeps the first nodes and says so", () => {
    const r = parseSrunArgs(["-N1-2", "-w", "n[1-3]", "true"], {}, ctx);
    expect(r.ok && r.value.kind === "run").toBe(true);
    if (!r.ok || r.value.kind !== "run") return;
    expect(r.value.spec.nodelist).toBe("n[1-2]");
    expect(r.value.warnings).toEqual(["error: Required nodelist includes more nodes than permitted by max-node count (3 > 2). Eliminating nodes from the nodelist."]);
  });
});

describe("sbatch reads SLURM_HOSTFILE", () => {
  const env = { HOME: "/root", PATH: "/usr/bin:/bin", SLURM_HOSTFILE: "/h" };
  it("the job requires the file's nodes, a task on each, arbitrary distribution", async () => {
    const f = fakePort({ env, files: { "/h": "n2\nn2\nn1\nn3\n" } });
    const r = await sbatchMain(["--wrap=true"], f.port);
    expect(r.exitCode, r.stderr).toBe(0);
    const spec = f.submitted[0]?.spec;
    expect([spec?.nodelist, spec?.ntasks, spec?.distribution]).toEqual(["n1,n2,n3", 3, "arbitrary"]);
  });
  it("a missing file fails before submitting, with SLURM_EXIT_ERROR's code", async () => {
    const f = fakePort({ env: { ...env, SLURM_EXIT_ERROR: "7" } });
    const r = await sbatchMain(["--wrap=true"], f.port);
    expect([r.exitCode, f.submitted.length]).toEqual([7, 0]);
    expect(r.stderr).toBe("sbatch: error: slurm_allocate_resources error opening file /h, No such file or directory\nsbatch: error: Failure getting NodeNames from hostfile\n");
  });
});
