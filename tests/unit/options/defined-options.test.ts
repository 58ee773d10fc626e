/**
 * sbatch -v's "defined options" list (oracle 22.05, run in /tmp/compat and shown here with the
 * test's working directory): every expected line is what the oracle printed for the same options.
 */
import { describe, expect, it } from "vitest";
import { sbatchMain } from "../../../src/cli/sbatch.ts";
import { fakePort } from "./helpers.ts";

const CWD = "/tmp/slurm-oracle/jobs";
const RULE = "sbatch: -------------------- --------------------";

/** sbatch's stderr from "defined options" to its end, and the exit status. */
async function dumped(argv: string[], env?: Record<string, string>): Promise<{ lines: string[]; exit: number; stderr: string }> {
  const f = fakePort(env === undefined ? {} : { env: { HOME: "/root", PATH: "/usr/bin:/bin", ...env } });
  const r = await sbatchMain(argv, f.port);
  const all = r.stderr.split("\n");
  const start = all.indexOf("sbatch: defined options");
  const end = all.indexOf("sbatch: end of defined options");
  return { lines: start < 0 ? [] : all.slice(start, end + 1), exit: r.exitCode, stderr: r.stderr };
}

const list = (...rows: string[]) => ["sbatch: defined options", RULE, ...rows.map((r) => `sbatch: ${r}`), RULE, "sbatch: end of defined options"];

describe("sbatch -v: the defined options", () => {
  it("lists each option given, in name order, its value as Slurm shows it", async () => {
    const argv = ["-v", "--hold", "-J", "myjob", "-n", "2", "-c", "2", "--mem=100", "-t", "10", "-p", "debug", "--gres=gpu:1", "-o", "out.txt",
      "--export=NONE", "--nice=5", "-N", "1", "--exclusive", "--wrap", "echo hi"];
    expect((await dumped(argv)).lines).toEqual(list(
      "cpus-per-task       : 2",
      "exclusive           : exclusive",
      "export              : NONE",
      "gres                : gres:gpu:1",
      "hold                : set",
      "job-name            : myjob",
      "mem                 : 100",
      "nice                : 5",
      "nodes               : 1",
      "ntasks              : 2",
      `output              : ${CWD}/out.txt`,
      "partition           : debug",
      "time                : 00:10:00",
      "verbose             : 1",
      "wrap                : echo hi",
    ));
  });

  it("dates, times, paths under --chdir, and the options with forms of their own", async () => {
    const argv = ["-v", "--hold", "--mem=1G", "-t", "1-0", "--time-min=90", "--begin=now+1hour", "-e", "err.txt", "-i", "in.txt", "-D", "/tmp",
      "--array=1-3", "--mail-type=END,FAIL", "--mail-user=a@b", "--comment=x y", "--exclude=n2", "-w", "n1", "--no-kill",
      "--open-mode=append", "--signal=B:USR1@30", "--ntasks-per-node=1", "--distribution=block:cyclic", "--deadline=now+1day",
      "--tmp=10", "--kill-on-invalid-dep=yes", "--cpu-freq=high", "--sockets-per-node=1", "--cores-per-socket=2", "--switches=1@10",
      "--wrap", "true"];
    expect((await dumped(argv)).lines).toEqual(list(
      "array               : 1-3",
      "begin               : 2026-12-02T13:35:00",
      "chdir               : /tmp",
      "comment             : x y",
      "cores-per-socket    : 2",
      "cpu-freq            : High",
      "deadline            : 2026-12-03T12:35:00",
      "distribution        : block:cyclic",
      "error               : /tmp/err.txt",
      "exclude             : n2",
      "hold                : set",
      "input               : /tmp/in.txt",
      "kill-on-invalid-dep : yes",
      "mail-type           : END,FAIL",
      "mail-user           : a@b",
      "mem                 : 1G",
      "no-kill             : set",
      "nodelist            : n1",
      "ntasks-per-node     : 1",
      "open-mode           : a",
      "signal              : B:USR1@30",
      "sockets-per-node    : 1",
      "switches            : 1@00:10:00",
      "time                : 1-00:00:00",
      "time-min            : 01:30:00",
      "tmp                 : 10",
      "verbose             : 1",
      "wrap                : true",
    ));
  });

  it.each([
    ["--time=1-02:03:04", "time                : 1-02:04:00"],
    ["--time=0", "time                : UNLIMITED"],
    ["--time=00:00:30", "time                : 00:01:00"],
    ["--mem=512M", "mem                 : 512"],
    ["--mem=0", "mem                 : 0?"],
    ["--mem-per-cpu=100k", "mem-per-cpu         : 1"],
    ["--signal=10@30", "signal              : USR1@30"],
    ["--signal=SIGUSR2", "signal              : USR2"],
    ["--signal=B:USR1@60", "signal              : B:USR1"],
    ["--mail-type=ALL", "mail-type           : INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT"],
    ["--mail-type=end", "mail-type           : END"],
    ["--nodes=-3", "nodes               : 1-3"],
    ["--nodes=2-2", "nodes               : 2"],
    ["--nodes=01", "nodes               : 1"],
    ["--cpu-freq=low-high:OnDemand", "cpu-freq            : Low-High:OnDemand"],
    ["--profile=all", "profile             : Energy,Lustre,Network,Task"],
    ["--profile=energy,task", "profile             : Energy,Task"],
    ["--distribution=*", "distribution        : block"],
    ["--distribution=block,Pack", "distribution        : block,pack"],
    ["--delay-boot=10", "delay-boot          : 00:10:00"],
    ["--delay-boot=0", "delay-boot          : 00:00:00"],
    ["--switches=2@1-0", "switches            : 2@1-00:00:00"],
    ["--priority=TOP", "priority            : -3"],
    ["--gres=gpu:mi300x:2", "gres                : gres:gpu:mi300x:2"],
    ["--kill-on-invalid-dep=No", "kill-on-invalid-dep : no"],
    ["--nice", "nice                : 100"],
    ["--nice=+7", "nice                : 7"],
    ["--mincpus=02", "mincpus             : 2"],
    ["--exclusive=USER", "exclusive           : user"],
    ["--open-mode=truncate", "open-mode           : t"],
    ["--requeue", "requeue             : requeue"],
    ["--no-requeue", "no-requeue          : no-requeue"],
    ["--oversubscribe", "oversubscribe       : oversubscribe"],
    ["--propagate", "propagate           : ALL"],
    ["--chdir=sub", `chdir               : ${CWD}/sub`],
    ["--begin=2037-01-01", "begin               : 2037-01-01T00:00:00"],
    ["--tasks-per-node=2", "ntasks-per-node     : 2"],
  ])("%s", async (opt, line) => {
    const { lines } = await dumped(["-v", "--hold", opt, "--wrap", "true"]);
    expect(lines).toContain(`sbatch: ${line}`);
  });

  it("flags are set; SBATCH_DEBUG counts as -v", async () => {
    const argv = ["-v", "--hold", "--contiguous", "--overcommit", "--parsable", "--spread-job", "--ignore-pbs", "--use-min-nodes", "--reboot", "--wrap", "true"];
    const { lines } = await dumped(argv);
    for (const flag of ["contiguous", "ignore-pbs", "overcommit", "parsable", "reboot", "spread-job", "use-min-nodes"]) expect(lines).toContain(`sbatch: ${flag.padEnd(20)}: set`);
    expect((await dumped(["--hold", "--wrap", "true"], { SBATCH_DEBUG: "1" })).lines).toEqual(list("hold                : set", "verbose             : 1", "wrap                : true"));
    expect((await dumped(["-vv", "--hold", "--wrap", "true"])).lines).toContain("sbatch: verbose             : 2");
  });

  it("lists #SBATCH lines' options, but a #SBATCH -v does not count (oracle 22.05; differential seed 10014)", async () => {
    const f = fakePort({ files: { "job.sh": "#!/bin/bash\n#SBATCH --comment=fromdir\n#SBATCH -t 5\n#SBATCH -v\ntrue\n" } });
    const r = await sbatchMain(["-v", "--hold", "job.sh"], f.port);
    const all = r.stderr.split("\n");
    expect(all.slice(all.indexOf("sbatch: defined options"), all.indexOf("sbatch: end of defined options") + 1)).toEqual(list(
      "comment             : fromdir", "hold                : set", "time                : 00:05:00", "verbose             : 1",
    ));
    const alone = await sbatchMain(["--hold", "job.sh"], fakePort({ files: { "job.sh": "#!/bin/bash\n#SBATCH -v\ntrue\n" } }).port);
    expect(alone.stderr).toBe("");
  });

  it("without -v there is no list; -v with -Q is refused, exit 1", async () => {
    expect((await dumped(["--hold", "--wrap", "true"])).lines).toEqual([]);
    for (const argv of [["-v", "-Q"], ["-Q", "-v"]]) {
      const r = await dumped([...argv, "--hold", "--wrap", "true"]);
      expect([r.stderr, r.exit]).toEqual(["sbatch: error: don't specify both --verbose (-v) and --quiet (-Q)\n", 1]);
    }
  });
});
