import { describe, expect, it } from "vitest";
import type { Built } from "../../../src/compat/options/build-spec.ts";
import { exportEnvironment, splitExportList } from "../../../src/compat/options/export-env.ts";
import { parseArgs } from "../../../src/compat/options/parse-args.ts";
import { sbatchRequest } from "../../../src/compat/options/sbatch-flow.ts";
import { errorText } from "../../../src/compat/options/messages.ts";
import { envFlagOn } from "../../../src/compat/options/env-input.ts";
import { wrapScript } from "../../../src/compat/options/script-directives.ts";
import { TIME_INFINITE } from "../../../src/compat/parse-time.ts";
import type { Result } from "../../../src/lib/result.ts";
import { readGolden } from "./helpers.ts";

const NOW = new Date(2026, 11, 2, 11, 20, 44).getTime() / 1000;
const INVOKER = { cwd: "/home/alice/proj", hostname: "login1" };

function sbatch(argv: string[], env: Record<string, string> = {}, script = wrapScript("true")): Result<Built> {
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) return parsed;
  const ctx = { cmd: "sbatch" as const, argv, env, invoker: INVOKER, now: NOW };
  return sbatchRequest(ctx, parsed.value.options, { text: script, from: "wrap", args: [] });
}

function built(argv: string[], env: Record<string, string> = {}, script?: string): Built {
  const r = sbatch(argv, env, script);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const withDirectives = (...lines: string[]): string => `#!/bin/sh\n${lines.map((l) => `#SBATCH ${l}\n`).join("")}echo\n`;

describe("precedence: command line > environment > #SBATCH", () => {
  const script = withDirectives("--time=10", "-p script");
  it.each([
    [[], {}, 10, "script"],
    [[], { SBATCH_TIMELIMIT: "20", SBATCH_PARTITION: "env" }, 20, "env"],
    [["-t", "30", "-p", "cli"], { SBATCH_TIMELIMIT: "20", SBATCH_PARTITION: "env" }, 30, "cli"],
    [["-t", "30"], {}, 30, "script"],
  ] as const)("argv %j env %j", (argv, env, minutes, partition) => {
    const b = built([...argv], { ...env }, script);
    expect([b.spec.timeLimitMin, b.spec.partition]).toEqual([minutes, partition]);
  });

  it("the last of repeated options wins within a source", () => {
    expect(built(["-n", "2", "--ntasks=5"]).spec.ntasks).toBe(5);
    expect(built([], {}, withDirectives("-n 2", "-n 3")).spec.ntasks).toBe(3);
  });

  it("a flag variable turns a script flag off", () => {
    expect(built([], {}, withDirectives("-O")).spec.overcommit).toBe(true);
    expect(built([], { SBATCH_OVERCOMMIT: "no" }, withDirectives("-O")).spec.overcommit).toBe(false);
    expect(built(["-O"], { SBATCH_OVERCOMMIT: "0" }).spec.overcommit).toBe(true);
  });

  it.each([["", true], ["yes", true], ["YES", true], ["1", true], ["-3", true], ["0", false], ["no", false], ["true", false], ["1x", false]])(
    "flag variable value %j → %s",
    (value, on) => {
      expect(envFlagOn(value)).toBe(on);
      expect(built([], { SBATCH_WAIT: value }).settings.wait).toBe(on);
    },
  );

  it("SBATCH_DEBUG sets the verbosity level, -v counts", () => {
    expect(built([], { SBATCH_DEBUG: "3" }).settings.verbose).toBe(3);
    expect(built(["-vv"]).settings.verbose).toBe(2);
  });
});

describe("the job request", () => {
  it("from the golden job script (042/043)", () => {
    const script = readGolden("042-sbatch-script-directives-cat.txt").stdout;
    const parsed = parseArgs("sbatch", ["golden_job.sh"]);
    if (!parsed.ok) throw new Error("parse");
    const r = sbatchRequest(
      { cmd: "sbatch", argv: ["golden_job.sh"], env: { HOME: "/root" }, invoker: { cwd: "/tmp/slurm-oracle/jobs", hostname: "vm" }, now: NOW },
      parsed.value.options,
      { text: script, from: "file", path: "golden_job.sh", args: ["a1"] },
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.spec).toMatchObject({
      name: "golden", stdOut: "%x-%j.out", gresPerNode: [{ name: "gpu", type: "", count: 2 }], ntasks: 2,
      timeLimitMin: 10, array: "1-3", script, argv: ["a1"], command: "/tmp/slurm-oracle/jobs/golden_job.sh",
      workDir: "/tmp/slurm-oracle/jobs", submitLine: "sbatch golden_job.sh", submitHost: "vm",
    });
  });

  it("defaults: job name 'wrap', work dir = cwd, nothing else set", () => {
    const { spec } = built(["--wrap=true"]);
    expect(spec).toMatchObject({ name: "wrap", workDir: "/home/alice/proj", ntasks: 0, nodesMin: 0, timeLimitMin: undefined, partition: "" });
  });

  it.each([
    [["-N", "2-4"], { nodesMin: 2, nodesMax: 4 }],
    [["-N5"], { nodesMin: 5, nodesMax: 5 }],
    [["-N", "1k"], { nodesMin: 1024, nodesMax: 1024 }],
    [["-n", "100", "-c", "4"], { ntasks: 100, cpusPerTask: 4 }],
    [["--ntasks-per-node=2", "--cpus-per-gpu=8", "--threads-per-core=1"], { ntasksPerNode: 2, cpusPerGpu: 8, threadsPerCore: 1 }],
    [["--mem=4G"], { memPerNodeMib: 4096 }],
    [["--mem-per-cpu=512"], { memPerCpuMib: 512 }],
    [["--mem-per-gpu=1T", "-G", "1"], { memPerGpuMib: 1048576 }],
    [["--time=UNLIMITED"], { timeLimitMin: TIME_INFINITE }],
    [["--time-min=1:30"], { timeMinMin: 2 }],
    [["--gres=gpu:mi300x:2,nic:1"], { gresPerNode: [{ name: "gpu", type: "mi300x", count: 2 }, { name: "nic", type: "", count: 1 }] }],
    [["--gres=gpu"], { gresPerNode: [{ name: "gpu", type: "", count: 1 }] }],
    [["--gres=gpu:mi300x"], { gresPerNode: [{ name: "gpu", type: "mi300x", count: 1 }] }],
    [["-G", "mi300x:2", "--gpus-per-node=mi300x:4", "--gpus-per-task=mi300x:1"], { gpus: "mi300x:2", gpusPerNode: "mi300x:4", gpusPerTask: "mi300x:1" }],
    [["--exclusive"], { exclusive: true }],
    [["--exclusive", "--exclusive=oversubscribe"], { exclusive: false }],
    [["-H", "--requeue"], { hold: true, requeue: true, noRequeue: false }],
    [["--requeue", "--no-requeue"], { requeue: false, noRequeue: true }],
    [["--open-mode=Append"], { openMode: "append" }],
    [["--open-mode=t"], { openMode: "truncate" }],
    [["--signal=B:USR1@120"], { signal: "B:10@120" }],
    [["--signal=SIGTERM"], { signal: "15@60" }],
    [["--signal=r:9"], { signal: "R:9@60" }],
    // the flags as 22.05 reads them: R, then B, then R, each optional (oracle, differential seed 10138)
    [["--signal=RB:USR1"], { signal: "B:10@60" }],
    [["--signal=bR:USR1@30"], { signal: "B:10@30" }],
    [["--signal=RR:USR1"], { signal: "R:10@60" }],
    [["--signal=RBR:USR1"], { signal: "B:10@60" }],
    [["--signal=:USR1"], { signal: "10@60" }],
    [["--mail-type=end,fail", "--mail-user=a@b"], { mailType: "END,FAIL", mailUser: "a@b" }],
    // 22.05 ORs repeated --mail-type (oracle: ALL then END is ALL; BEGIN then FAIL is BEGIN,FAIL; a later NONE takes nothing away)
    [["--mail-type=ALL", "--mail-type=END"], { mailType: "ALL,END" }],
    [["--mail-type=BEGIN", "--mail-type=FAIL"], { mailType: "BEGIN,FAIL" }],
    [["--mail-type=ALL", "--mail-type=NONE"], { mailType: "ALL" }],
    [["--mail-type=END,NONE"], { mailType: "NONE" }],
    [["-o", "none", "-e", "err-%j.txt", "-i", "in.txt"], { stdOut: "/dev/null", stdErr: "err-%j.txt", stdIn: "in.txt" }],
    [["--nice"], { nice: 100 }],
    [["--nice=-5"], { nice: -5 }],
    [["--priority=TOP"], { priority: 4294967293 }],
    [["--priority=7"], { priority: 7 }],
    [["--kill-on-invalid-dep=yes"], { killOnInvalidDep: true }],
    // an empty --array is no array, and clears an earlier one (oracle 22.05; differential seed 13546)
    [["--array="], { array: "" }],
    [["--array=1-2", "--array="], { array: "" }],
    // "no" is a flag of its own (22.05: KillOInInvalidDependent=No; yes then no keeps both)
    [["--kill-on-invalid-dep=NO"], { killOnInvalidDep: false, noKillOnInvalidDep: true }],
    [["--kill-on-invalid-dep=yes", "--kill-on-invalid-dep=no"], { killOnInvalidDep: true, noKillOnInvalidDep: true }],
    // 22.05 joins a relative --chdir to the current directory without tidying it (oracle: -D ./ is $PWD/./)
    [["-D", "../other/./dir"], { workDir: "/home/alice/proj/../other/./dir" }],
    [["-D", "sub/"], { workDir: "/home/alice/proj/sub/" }],
    [["-D", "/scratch"], { workDir: "/scratch" }],
    [["--begin=now+1hour"], { beginTime: Math.floor(NOW) + 3600 }],
    [["--deadline=2030-01-02T10:20"], { deadline: new Date(2030, 0, 2, 10, 20).getTime() / 1000 }],
    [["--dependency=afterok:17_*:18+5,afterany:19"], { dependency: "afterok:17_*:18+5,afterany:19" }],
    [["--dependency=afterok:17_[1-3,5]?singleton"], { dependency: "afterok:17_[1-3,5]?singleton" }],
    [["--array=0-15%4"], { array: "0-15%4" }],
    [["--array=1,3,5,[7-9:2]"], { array: "1,3,5,[7-9:2]" }],
    [["-w", "n[1-2]", "-x", "n3", "-C", "a100", "-A", "acct", "-q", "high", "--reservation=r1", "--wckey=k", "-L", "lic:2", "--comment=c"],
      { nodelist: "n[1-2]", exclude: "n3", constraint: "a100", account: "acct", qos: "high", reservation: "r1", wckey: "k", licenses: "lic:2", comment: "c" }],
    [["-m", "cyclic:block,Pack"], { distribution: "cyclic:block,Pack" }],
    [["-J", "x", "--overcommit"], { name: "x", overcommit: true }],
  ] as const)("%j", (argv, fields) => {
    expect(built([...argv]).spec).toMatchObject(fields);
  });

  it("-M is kept for the output line", () => {
    expect(built(["-M", "c1,c2"]).settings.clusters).toBe("c1,c2");
  });

  it("SLURM_UMASK sets the job's umask", () => {
    expect(built([], { SLURM_UMASK: "0027" }).spec.umask).toBe(0o027);
  });
});

describe("Slurm-worded validation errors", () => {
  it.each([
    [["--time=abc"], "Invalid --time specification", 255],
    [["--time-min=x"], "Invalid --time-min specification", 255],
    [["--mem=4GBx"], "Invalid --mem specification", 255], // 4GB itself is 4G (oracle); 500B, 1.5G, 1M5 are refused
    [["--mem-per-cpu=x"], "Invalid --mem-per-cpu specification", 255],
    [["-n", "abc"], 'Invalid numeric value "abc" for --ntasks.', 1], // parse_int exits 1 (conformance x-err-sbatch-ntasks-zero)
    [["-n", "0"], 'Invalid numeric value "0" for --ntasks.', 1], // parse_int exits 1 (conformance x-err-sbatch-ntasks-zero)
    [["-c", "-1"], 'Invalid numeric value "-1" for --cpus-per-task.', 1], // parse_int exits 1 (conformance x-err-sbatch-ntasks-zero)
    [["-N", "abc"], '"abc" is not a valid node count', 255],
    // oracle (differential seed 1008)
    [["-N", "1-"], "Maximum node count -1 is less than minimum node count 1", 255],
    [["-N", "4-2"], "Maximum node count 2 is less than minimum node count 4", 255],
    [["--gres=gpu:a:b:c"], "Invalid generic resource (gres) specification", undefined],
    [["--gres=gpu:a:b"], "Invalid generic resource (gres) specification", undefined],
    [["--gres=:2"], "Invalid generic resource (gres) specification", undefined],
    [["--gpus=a:b:2"], "Invalid generic resource (gres) specification", undefined],
    [["--begin=xyz"], "Invalid time specification (pos=0): xyz\nInvalid --begin specification", 255],
    [["--deadline=0"], "Invalid time specification (pos=-1): 0\nInvalid --deadline specification", 255],
    [["--open-mode=x"], "Invalid --open-mode specification", 255],
    [["--signal=FOO"], "Invalid --signal specification", 255],
    [["--signal=USR1@x"], "Invalid --signal specification", 255],
    [["--signal=X:USR1"], "Invalid --signal specification", 255],
    [["--signal=BB:USR1"], "Invalid --signal specification", 255],
    [["--signal=RRB:USR1"], "Invalid --signal specification", 255],
    [["--signal=RRR:USR1"], "Invalid --signal specification", 255],
    [["--signal=B:R:USR1"], "Invalid --signal specification", 255],
    [["--mail-type=SOMETIMES"], "Invalid --mail-type specification", 255],
    [["--exclusive=maybe"], "Invalid --exclusive specification", 255],
    [["--kill-on-invalid-dep=maybe"], "Invalid --kill-on-invalid-dep specification", 255],
    [["--nice=3000000000"], "Invalid --nice value, out of range (+/- 2147483645)", 255],
    [["--priority=-1"], "Priority must be >= 0", 255],
    [["-m", "diagonal"], "Invalid --distribution specification", 255],
    [["--array=abc"], "Invalid job array specification", undefined],
    [["--array=5-1"], "Invalid job array specification", undefined],
    [["--array=1-5:0"], "Invalid job array specification", undefined],
    [["--array=1-5%x"], "Invalid job array specification", undefined],
    [["--dependency=bogus:1"], "Job dependency problem", undefined],
    [["--dependency=afterok:1,afterany:2?afterok:3"], "Job dependency problem", undefined],
    [["--dependency=afterok:0"], "Job dependency problem", undefined],
    [["--dependency=afterok:"], "Job dependency problem", undefined],
    [["--mem=1G", "--mem-per-cpu=1G"], "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.", undefined],
    [["--uid=bob"], "--uid is not supported by Spur", undefined],
    [["--container-id=c1"], "--container-id is not supported by Spur", undefined],
    [["--container-save=/x.sqsh"], "--container-save is not supported by Spur", undefined],
    [["-w", "./nodes.txt"], "-w with a node file is not supported by Spur", undefined],
    [["-N", "1,4"], "--nodes size lists (1,4) are not supported by Spur", undefined],
    [["-N", "0"], "Node count specification invalid", undefined],
    [["-w", "n[1-"], "Invalid node name specified", undefined],
    [["-x", "n1]"], "Invalid node name specified", undefined],
  ] as const)("%j → %j", (argv, message, exitCode) => {
    const r = sbatch([...argv]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect([r.error.message, r.error.exitCode]).toEqual([message, exitCode]);
  });

  it("checks Slurm makes in its controller read as submission rejections; parse_time's line is bare", () => {
    const text = (argv: string[]): string => {
      const r = sbatch(argv);
      return r.ok ? "" : errorText("sbatch", r.error);
    };
    expect(text(["-N", "0"])).toBe("sbatch: error: Batch job submission failed: Node count specification invalid\n");
    expect(text(["-w", "n[1-"])).toBe("sbatch: error: Batch job submission failed: Invalid node name specified\n");
    expect(text(["--begin=garbage"])).toBe("Invalid time specification (pos=0): garbage\nsbatch: error: Invalid --begin specification\n");
  });

  it("a bad value in an input variable or a directive fails the same way", () => {
    expect(sbatch([], { SBATCH_TIMELIMIT: "abc" })).toMatchObject({ ok: false, error: { message: "Invalid --time specification" } });
    expect(sbatch([], {}, withDirectives("--time=abc"))).toMatchObject({ ok: false, error: { message: "Invalid --time specification" } });
  });

  it("memory options from lower sources give way to the command line", () => {
    const b = built(["--mem-per-cpu=100"], {}, withDirectives("--mem=1G"));
    expect([b.spec.memPerNodeMib, b.spec.memPerCpuMib]).toEqual([undefined, 100]);
  });
});

describe("unsupported options warn, never vanish", () => {
  it("warns once per option with the spelling used", () => {
    const b = built(["--mcs-label=a", "--mcs-label=b", "--reboot"], { SBATCH_CLUSTER_CONSTRAINT: "x" });
    expect(b.warnings).toEqual([
      "SBATCH_CLUSTER_CONSTRAINT (--cluster-constraint) is not supported by Spur and was ignored",
      "--mcs-label is not supported by Spur and was ignored",
      "--reboot is not supported by Spur and was ignored",
    ]);
  });

  it("variables Slurm itself ignores stay quiet (SBATCH_POWER, SLURM_CONF)", () => {
    expect(built([], { SBATCH_POWER: "x", SLURM_CONF: "/etc/slurm.conf" }).warnings).toEqual([]);
  });

  it("#PBS lines are reported unless --ignore-pbs", () => {
    const script = "#!/bin/sh\n#PBS -l nodes=1\necho\n";
    expect(built([], {}, script).warnings).toEqual(["#PBS directives are not supported by Spur and were ignored"]);
    expect(built(["--ignore-pbs"], {}, script).warnings).toEqual([]);
  });

  it("--exclusive=user shares nodes with the user's own jobs (no warning); mcs and topo are whole nodes, with a warning", () => {
    const b = built(["--exclusive=USER"]);
    expect([b.spec.exclusive, b.spec.exclusiveUser, b.warnings]).toEqual([false, true, []]);
    for (const mode of ["mcs", "topo"]) {
      const w = built([`--exclusive=${mode}`]);
      expect([w.spec.exclusive, w.spec.exclusiveUser, w.warnings.length]).toEqual([true, undefined, 1]);
    }
  });

  it("the last of --exclusive, --exclusive=user and --oversubscribe wins", () => {
    const pick = (args: string[]) => {
      const s = built(args).spec;
      return [s.exclusive, s.exclusiveUser ?? false, s.oversubscribe ?? false];
    };
    expect(pick(["--exclusive=user", "--exclusive"])).toEqual([true, false, false]);
    expect(pick(["--exclusive", "--exclusive=user"])).toEqual([false, true, false]);
    expect(pick(["--exclusive=user", "-s"])).toEqual([false, false, true]);
    expect(pick(["-s", "--exclusive=user"])).toEqual([false, true, false]);
  });

  it("--prefer is kept for the scheduler, without a warning", () => {
    const b = built(["--prefer=fast&ib"]);
    expect([b.spec.prefer, b.warnings]).toEqual(["fast&ib", []]);
  });
});

describe("--export", () => {
  const env = { HOME: "/root", PATH: "/bin", SLURM_CONF: "/c", FOO: "1" };
  it.each([
    [undefined, { HOME: "/root", PATH: "/bin", SLURM_CONF: "/c", FOO: "1" }, false],
    ["ALL", { HOME: "/root", PATH: "/bin", SLURM_CONF: "/c", FOO: "1" }, false],
    ["NONE", { SLURM_CONF: "/c" }, true],
    ["NIL", { SLURM_CONF: "/c" }, false],
    ["FOO,BAR=2", { SLURM_CONF: "/c", FOO: "1", BAR: "2" }, true],
    ["ALL,FOO=9", { HOME: "/root", PATH: "/bin", SLURM_CONF: "/c", FOO: "9" }, true], // oracle 22.05: any list sets SLURM_GET_USER_ENV=1, ALL in it or not
    ["MISSING", { SLURM_CONF: "/c" }, true],
    ["P=/a,/b,FOO", { SLURM_CONF: "/c", P: "/a,/b", FOO: "1" }, true],
  ])("%j", (value, expected, getUserEnv) => {
    expect(exportEnvironment(value, env)).toEqual({ env: expected, getUserEnv });
  });

  it("splits lists on commas but keeps values with commas", () => {
    expect(splitExportList("A=1,B,C=x,1,/z,D")).toEqual(["A=1", "B", "C=x,1,/z", "D"]);
  });

  it("the job environment also records where it was submitted from", () => {
    const b = built(["--export=NONE"], env);
    expect(b.spec.env).toEqual({
      SLURM_CONF: "/c", SLURM_EXPORT_ENV: "NONE", SLURM_GET_USER_ENV: "1",
      SLURM_SUBMIT_DIR: "/home/alice/proj", SLURM_SUBMIT_HOST: "login1", SLURM_PRIO_PROCESS: "0",
    });
    expect(b.spec.export).toBe("NONE");
    expect(built([], { ...env, SBATCH_EXPORT: "FOO" }).spec.env.FOO).toBe("1");
    expect(built([], env).spec.env.HOME).toBe("/root");
  });
});

describe("an empty job name (Slurm 22.05, oracle: differential seed 104)", () => {
  it("sbatch -J '' keeps it empty instead of naming the job after its script", () => {
    expect(built(["--job-name="]).spec.name).toBe("");
    expect(built([], {}, withDirectives("--job-name=")).spec.name).toBe("");
    expect(built([]).spec.name).toBe("wrap");
  });
});

describe("--help/--usage/--version outside the command line (oracle: differential seeds 116, 149, 254)", () => {
  it("are skipped silently in #SBATCH lines", () => {
    expect(built([], {}, withDirectives("--version", "--usage", "--help")).warnings).toEqual([]);
  });
});

describe("-Q/--quiet (oracle: differential seed 1056)", () => {
  it("counts on the command line only: a #SBATCH line or SBATCH_QUIET still gets the submission line", () => {
    expect(built(["-Q"]).settings.quiet).toBe(true);
    expect(built([], {}, withDirectives("--quiet")).settings.quiet).toBe(false);
    expect(built([], { SBATCH_QUIET: "1" }).settings.quiet).toBe(false);
  });
});
