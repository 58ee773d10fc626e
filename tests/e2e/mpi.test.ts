/**
 * End-to-end: MPI programs really run on Spur (issue 19), with Debian's Open MPI 4.1 and MPICH
 * 4.0 (`.ci/run` installs them). Three small C programs from tests/fixtures/mpi, compiled with
 * `mpicc.openmpi` and `mpicc.mpich`, run on a local cluster of 4 nodes x 2 tasks:
 * - `mpirun` inside an allocation (Open MPI starts its orted with `srun`, MPICH's hydra its
 *   proxies with `srun`; both read SLURM_NODELIST / SLURM_TASKS_PER_NODE / SLURM_JOB_CPUS_PER_NODE);
 * - direct launch `srun --mpi=pmi2` (MPICH's PMI-1 client on the PMI_FD socket the node's agent
 *   serves; fences cross the nodes through srun). Debian's Open MPI 4.1 has no PMI-1/2 client
 *   (only PMIx), and says so itself: that is checked too;
 * - direct launch `srun --mpi=pmix` (Open MPI's PMIx client talking to a PMIx server per node and
 *   step on Debian's libpmix, run as the job's user; fences cross the nodes through srun), also
 *   as an ordinary user, with MPI_Abort, and refused as Slurm refuses it where libpmix is missing.
 * The PMI-2 wire (no Debian MPI speaks it) is driven by a shell client across nodes; and the SLURM_*
 * variables a PyTorch launcher reads give every task its world size, ranks and master address.
 * The local cluster runs its nodes on one host: Open MPI's shared-memory transport would see the
 * tasks of different "nodes" as neighbours with clashing segment names, so it is told to use TCP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ensureUser, jobEnded, startCluster, type Cluster } from "./cluster.ts";

const FIXTURES = resolve(__dirname, "../fixtures/mpi");
const PROGRAMS = ["hello", "ring", "allreduce"] as const;
/** Direct launch as an ordinary user (the PMIx server then runs as that user). */
const USER = "spurmpi";
const has = (cmd: string) => spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;
// CI installs both (.ci/run): there a missing compiler fails the tests instead of skipping them
const ready = (has("mpicc.openmpi") && has("mpicc.mpich")) || process.env.CI !== undefined;

let c: Cluster;

/** Open MPI as root (the tests' user) and over TCP (see the header). */
const OMPI_ENV = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp";

beforeAll(() => {
  if (!ready) return;
  c = startCluster(["--nodes", "4", "--cpus-per-node", "2", "--mem-per-node", "2000"]);
  for (const p of PROGRAMS) {
    copyFileSync(join(FIXTURES, `${p}.c`), join(c.work, `${p}.c`));
    for (const [cc, suffix] of [["mpicc.openmpi", "ompi"], ["mpicc.mpich", "mpich"]] as const) {
      const r = spawnSync(cc, ["-O1", "-o", `${p}.${suffix}`, `${p}.c`], { cwd: c.work, encoding: "utf8" });
      if (r.status !== 0) throw new Error(`${cc} ${p}.c failed: ${r.stderr}`);
    }
  }
  copyFileSync(join(FIXTURES, "abort.c"), join(c.work, "abort.c"));
  const r = spawnSync("mpicc.openmpi", ["-O1", "-o", "abort.ompi", "abort.c"], { cwd: c.work, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`mpicc.openmpi abort.c failed: ${r.stderr}`);
}, 120_000);
afterAll(() => c?.down());

/** Run shell text inside a 4-node, 8-task allocation; stdout lines sorted. */
function inAllocation(script: string): { lines: string[]; stderr: string; code: number } {
  const r = c.run(["salloc", "-Q", "-N4", "-n8", "bash", "-c", script]);
  return { lines: r.stdout.split("\n").filter((l) => l !== "").sort(), stderr: r.stderr, code: r.code };
}

/** What the three programs print on 8 ranks over n1..n4, block by node (hello's host is the real one). */
function expectMatrix(lines: string[], host: string): void {
  const hello = lines.filter((l) => l.startsWith("hello "));
  expect(hello).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((r) => `hello rank=${r} size=8 node=n${Math.floor(r / 2) + 1} host=${host}`));
  expect(lines.filter((l) => l.startsWith("ring "))).toEqual(["ring token=29 want=29 ok"]);
  const sums = lines.filter((l) => l.startsWith("allreduce "));
  expect(sums).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((r) => `allreduce rank=${r} sum=360,255 ok`));
}

/** Shell text run as the user would type it (the cluster's commands on PATH). */
function sh(script: string): { stdout: string; stderr: string; code: number } {
  const r = spawnSync("bash", ["-c", script], { env: c.env, cwd: c.work, encoding: "utf8", timeout: 120_000 });
  return { stdout: r.stdout ?? "", stderr: r.stderr ?? "", code: r.status ?? -1 };
}

const run3 = (launcher: string, suffix: string) => PROGRAMS.map((p) => `${launcher} ./${p}.${suffix} || echo "${p} failed: $?"`).join("; ");
const hostName = () => spawnSync("hostname", { encoding: "utf8" }).stdout.trim();

describe.runIf(ready)("MPI on 4 nodes x 2 tasks", () => {
  it("Open MPI: mpirun inside an allocation starts its daemons with srun", () => {
    const r = inAllocation(`export ${OMPI_ENV}; ${run3("mpirun.openmpi", "ompi")}; sacct -n -P -j $SLURM_JOB_ID -o JobName,NNodes,NTasks | grep orted | sort -u`);
    expect(r.code, r.stderr).toBe(0);
    expectMatrix(r.lines, hostName());
    // one orted per node, launched as steps of the allocation
    expect(r.lines.filter((l) => l.startsWith("orted|"))).toEqual(["orted|4|4"]);
  });

  it("MPICH: mpirun (hydra) inside an allocation starts its proxies with srun", () => {
    const r = inAllocation(`${run3("mpirun.mpich", "mpich")}; sacct -n -P -j $SLURM_JOB_ID -o JobName,NNodes,NTasks | grep hydra | sort -u`);
    expect(r.code, r.stderr).toBe(0);
    expectMatrix(r.lines, hostName());
    expect(r.lines.filter((l) => l.startsWith("hydra_pmi_proxy|"))).toEqual(["hydra_pmi_proxy|4|4"]);
  });

  it("a subset of the allocation's hosts (mpirun --host / -hosts) reaches srun as --nodelist and is honoured", () => {
    const nodes = (lines: string[]) => [...new Set(lines.map((l) => /node=(\S+)/.exec(l)?.[1] ?? "?"))].sort();
    const ompi = inAllocation(`export ${OMPI_ENV}; mpirun.openmpi -np 4 --host n3:2,n4:2 ./hello.ompi`);
    expect(ompi.code, ompi.stderr).toBe(0);
    expect([ompi.lines.length, nodes(ompi.lines)]).toEqual([4, ["n3", "n4"]]);
    const mpich = inAllocation("mpirun.mpich -n 4 -hosts n2,n3 ./hello.mpich");
    expect(mpich.code, mpich.stderr).toBe(0);
    expect([mpich.lines.length, nodes(mpich.lines)]).toEqual([4, ["n2", "n3"]]);
  });

  it("MPICH: direct launch with srun --mpi=pmi2, also as a job of its own", () => {
    const r = inAllocation(run3("srun --mpi=pmi2", "mpich"));
    expect(r.code, r.stderr).toBe(0);
    expectMatrix(r.lines, hostName());
    const own = c.run(["srun", "--mpi=pmi2", "-N4", "-n8", "-m", "cyclic", "./hello.mpich"]);
    expect(own.code, own.stderr).toBe(0);
    // cyclic: rank r on node r % 4
    const lines = own.stdout.split("\n").filter((l) => l !== "").sort();
    expect(lines.map((l) => l.replace(/ host=.*/, ""))).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((r) => `hello rank=${r} size=8 node=n${(r % 4) + 1}`));
  });

  it("in a batch script: mpirun (both) and srun --mpi=pmi2 on the job's 4 nodes", async () => {
    c.write("mpi-job.sh", [
      "#!/bin/bash",
      "#SBATCH -N4 --ntasks-per-node=2 -o mpi-job.out",
      `export ${OMPI_ENV}`,
      "mpirun.openmpi ./allreduce.ompi | grep -c ok",
      "mpirun.mpich ./ring.mpich",
      "srun --mpi=pmi2 ./allreduce.mpich | grep -c ok",
      "srun --mpi=pmix ./allreduce.ompi | grep -c ok",
      "",
    ].join("\n"));
    const jobId = c.run(["sbatch", "--parsable", "mpi-job.sh"]).stdout.trim();
    expect(await jobEnded(c, jobId)).toBe("COMPLETED");
    expect(readFileSync(join(c.work, "mpi-job.out"), "utf8")).toBe("8\nring token=29 want=29 ok\n8\n8\n");
  });

  it("Open MPI: direct launch with srun --mpi=pmix (a PMIx server per node), also as a job of its own", () => {
    const r = inAllocation(`export ${OMPI_ENV}; ${run3("srun --mpi=pmix", "ompi")}`);
    expect(r.code, r.stderr).toBe(0);
    expectMatrix(r.lines, hostName());
    const own = sh(`export ${OMPI_ENV}; srun --mpi=pmix -N4 -n8 -m cyclic ./hello.ompi`);
    expect(own.code, own.stderr).toBe(0);
    const lines = own.stdout.split("\n").filter((l) => l !== "").sort();
    expect(lines.map((l) => l.replace(/ host=.*/, ""))).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((r) => `hello rank=${r} size=8 node=n${(r % 4) + 1}`));
  });

  it("--mpi=pmix gives each task PMIx's variables and Slurm's (oracle names), as the job's user", () => {
    expect(ensureUser(USER)).toBe(true);
    const r = c.run(["srun", "--mpi=pmix", "-N2", "-n4", "bash", "-c", 'echo "$SLURM_PROCID $(id -un) $SLURM_MPI_TYPE $PMIX_NAMESPACE $PMIX_RANK $SLURM_PMIX_MAPPING_SERV ${PMIX_SERVER_URI41:+uri}"'], { user: USER });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split("\n").filter((l) => l !== "").sort();
    expect(lines.map((l) => l.replace(/slurm\.pmix\.\d+\.0/, "slurm.pmix.J.0"))).toEqual([0, 1, 2, 3].map((rank) => `${rank} ${USER} pmix slurm.pmix.J.0 ${rank} (vector,(0,2,2)) uri`));
    // and a real MPI program as that user: the PMIx server runs as the user, the tasks connect to it
    const mpi = sh(`export OMPI_MCA_btl=self,tcp; setpriv --reuid=$(id -u ${USER}) --regid=$(id -g ${USER}) --init-groups -- srun --mpi=pmix -N4 -n8 ./allreduce.ompi`);
    expect(mpi.code, mpi.stderr).toBe(0);
    expect(mpi.stdout.split("\n").filter((l) => l.endsWith(" ok"))).toHaveLength(8);
  });

  it("MPI_Abort under --mpi=pmix cancels the step on every node (the lines of a PMI abort, status 137)", () => {
    const r = sh(`export ${OMPI_ENV}; srun --mpi=pmix -N2 -n2 ./abort.ompi`);
    const lines = r.stderr.split("\n").filter((l) => /^(srun|slurmstepd)/.test(l)).map((l) => l.replace(/\d+\.0/, "J.0").replace(/AT \S+ \*/, "AT T *")).sort();
    expect(lines).toEqual([
      "slurmstepd-n2: error: *** STEP J.0 ON n2 CANCELLED AT T ***",
      "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
      "srun: error: n1: task 0: Killed",
      "srun: error: n2: task 1: Killed",
    ]);
    expect(r.stderr).toContain("MPI_ABORT was invoked on rank 1");
    expect(r.code).toBe(137);
  });

  it("Open MPI 4.1 from Debian cannot be direct-launched with pmi2 (no PMI-1/2 client built), and says so", () => {
    const r = sh(`export ${OMPI_ENV}; srun --mpi=pmi2 -N2 -n2 ./hello.ompi`);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain("OMPI was not built with SLURM's PMI support");
  });

  it("the PMI-2 wire across nodes: fullinit, job attributes, kvs-put, kvs-fence, kvs-get of another node's key", () => {
    const probe = [
      "fd=$PMI_FD",
      'echo "cmd=init pmi_version=2 pmi_subversion=0" >&$fd; IFS= read -r -u $fd line; echo "$PMI_RANK init $line"',
      'q() { printf "%-6d%s" ${#1} "$1" >&$fd; IFS= read -r -N 6 -u $fd len; IFS= read -r -N $len -u $fd body; echo "$PMI_RANK $body"; }',
      'q "cmd=fullinit;pmijobid=$PMI_JOBID;pmirank=$PMI_RANK;threaded=FALSE;"',
      'q "cmd=info-getjobattr;key=PMI_process_mapping;"',
      'q "cmd=kvs-put;key=k$PMI_RANK;value=v$PMI_RANK;"',
      'q "cmd=kvs-fence;"',
      'q "cmd=kvs-get;jobid=$PMI_JOBID;srcid=-1;key=k$(( (PMI_RANK + 1) % PMI_SIZE ));"',
      'q "cmd=finalize;"',
    ].join("\n");
    c.write("pmi2probe.sh", `#!/bin/bash\n${probe}\n`);
    const r = c.run(["srun", "--mpi=pmi2", "-N2", "-n4", "./pmi2probe.sh"]);
    expect(r.code, r.stderr).toBe(0);
    const of = (rank: number) => r.stdout.split("\n").filter((l) => l.startsWith(`${rank} `)).map((l) => l.slice(2));
    // rank 1 (node 0) reads rank 2's key (node 1): the fence carried it across
    expect(of(1)).toEqual([
      "init cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0",
      "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=1;size=4;appnum=-1;debugged=FALSE;pmiverbose=FALSE;",
      "cmd=info-getjobattr-response;rc=0;found=TRUE;value=(vector,(0,2,2));",
      "cmd=kvs-put-response;rc=0;",
      "cmd=kvs-fence-response;rc=0;",
      "cmd=kvs-get-response;rc=0;found=TRUE;value=v2;",
      "cmd=finalize-response;rc=0;",
    ]);
    expect(of(3)).toContain("cmd=kvs-get-response;rc=0;found=TRUE;value=v0;");
  });

  it("a PMI abort from one task cancels the step on every node (oracle lines, status 137)", () => {
    const abort = [
      'echo "cmd=init pmi_version=1 pmi_subversion=1" >&$PMI_FD; IFS= read -r -u $PMI_FD line',
      '[ "$PMI_RANK" = 1 ] && echo "cmd=abort exitcode=7" >&$PMI_FD',
      "sleep 60",
    ].join("\n");
    c.write("pmiabort.sh", `#!/bin/bash\n${abort}\n`);
    const r = c.run(["srun", "--mpi=pmi2", "-N2", "-n2", "./pmiabort.sh"]);
    const lines = r.stderr.split("\n").filter((l) => l !== "").map((l) => l.replace(/\d+\.0/, "J.0").replace(/AT \S+ \*/, "AT T *")).sort();
    expect(lines).toEqual([
      "slurmstepd-n2: error: *** STEP J.0 ON n2 CANCELLED AT T ***",
      "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
      "srun: error: n1: task 0: Killed",
      "srun: error: n2: task 1: Killed",
    ]);
    expect(r.code).toBe(137);
  });

  it("the SLURM_* variables a PyTorch launcher reads give world size, ranks and master address on every node", () => {
    // what torch.distributed's env:// needs, derived as Lightning's SLURMEnvironment and accelerate derive it
    const script = [
      "MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n1)",
      'echo "rank=$SLURM_PROCID local=$SLURM_LOCALID node=$SLURM_NODEID world=$SLURM_NTASKS nnodes=$SLURM_NNODES master=$MASTER_ADDR on=$SLURMD_NODENAME"',
    ].join("; ");
    const r = c.run(["salloc", "-Q", "-N4", "--ntasks-per-node=2", "srun", "bash", "-c", script]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split("\n").filter((l) => l !== "").sort();
    expect(lines).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((rank) => {
      const node = Math.floor(rank / 2);
      return `rank=${rank} local=${rank % 2} node=${node} world=8 nnodes=4 master=n1 on=n${node + 1}`;
    }));
  });

  it("--mpi=list, a type Spur has no plugin for, pmix without libpmix, and MpiDefault= (oracle texts)", () => {
    // oracle (Slurm 22.05 with libpmix 4.2): pmix listed first, then the versions line
    const list = c.run(["srun", "--mpi=list"]);
    expect(list).toEqual({ stdout: "MPI plugin types are...\n\tpmix\n\tnone\n\tpmi2\nspecific pmix plugin versions available: pmix_v4\n", stderr: "", code: 0 });
    const bogus = c.run(["srun", "--mpi=bogus", "true"]);
    expect(bogus.code).toBe(1);
    expect(bogus.stderr.split("\n").at(-2)).toBe("srun: error: Invalid MPI type 'bogus', --mpi=list for acceptable types");
    // where libpmix cannot be loaded, pmix is refused as a Slurm whose pmix plugin cannot load it
    const missing = sh("SPUR_PMIX_LIBRARY=/nonexistent/libpmix.so.2 srun --mpi=pmix true");
    expect(missing.code).toBe(1);
    expect(missing.stderr.split("\n")[0]).toMatch(/^srun: error: plugin_load_from_file: dlopen\(\/nonexistent\/libpmix.so.2\): .*No such file or directory$/);
    expect(missing.stderr.split("\n").at(-2)).toBe("srun: error: Invalid MPI type 'pmix', --mpi=list for acceptable types");
    expect(sh("SPUR_PMIX_LIBRARY=/nonexistent/libpmix.so.2 srun --mpi=list").stdout).toBe("MPI plugin types are...\n\tnone\n\tpmi2\n");
    // srun reads MpiDefault= itself: the step gets PMI without --mpi (and --mpi=none turns it off)
    const before = readFileSync(c.conf, "utf8");
    appendFileSync(c.conf, "MpiDefault=pmi2\n");
    const env = c.run(["srun", "-n1", "bash", "-c", "echo ${PMI_FD:-none} ${SLURM_MPI_TYPE:-none}"]);
    expect(env.stdout).toBe("5 pmi2\n");
    const none = c.run(["srun", "--mpi=none", "-n1", "bash", "-c", "echo ${PMI_FD:-none}"]);
    expect(none.stdout).toBe("none\n");
    writeFileSync(c.conf, `${before}MpiDefault=pmix\n`);
    const pmix = c.run(["srun", "-n1", "bash", "-c", "echo ${SLURM_MPI_TYPE:-none} ${PMIX_RANK:-none}"]);
    expect(pmix.stdout).toBe("pmix 0\n");
    writeFileSync(c.conf, before);
  });
});
