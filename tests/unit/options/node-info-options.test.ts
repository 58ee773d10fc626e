/**
 * -B/--extra-node-info and --core-spec/--thread-spec as Slurm 22.05's sbatch reads them. Every
 * expected value was seen on the oracle (scontrol show job's ReqB:S:C:T=, Socks/Node=, NumTasks=;
 * sbatch's stderr and exit code).
 */
import { describe, expect, it } from "vitest";
import type { Built } from "../../../src/compat/options/build-spec.ts";
import { parseArgs } from "../../../src/compat/options/parse-args.ts";
import { sbatchRequest } from "../../../src/compat/options/sbatch-flow.ts";
import { wrapScript } from "../../../src/compat/options/script-directives.ts";
import type { Result } from "../../../src/lib/result.ts";

const INVOKER = { cwd: "/home/alice", hostname: "login1" };

function sbatch(argv: string[]): Result<Built> {
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) return parsed;
  const ctx = { cmd: "sbatch" as const, argv, env: {}, invoker: INVOKER, now: 1_800_000_000 };
  return sbatchRequest(ctx, parsed.value.options, { text: wrapScript("true"), from: "wrap", args: [] });
}

function built(argv: string[]): Built {
  const r = sbatch(argv);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const shape = (b: Built) => [b.spec.socketsPerNode, b.spec.coresPerSocket, b.spec.threadsPerCore, b.spec.ntasks];

describe("-B/--extra-node-info", () => {
  it.each([
    // argv, [Socks/Node, ReqC, ReqT, NumTasks] as the oracle showed them (0/undefined = "*")
    [["-B", "1:2:1"], [1, 2, 1, 2]],
    [["-B", "1:4"], [1, 4, 0, 4]],
    [["-B", "1:2:2"], [1, 2, 2, 4]],
    [["-B", "2"], [2, undefined, 0, 2]],
    [["-B", "*:2"], [undefined, 2, 0, 2]],
    [["-B", "1:*:1"], [1, undefined, 1, 1]],
    [["--extra-node-info=1:2:3:4"], [1, 2, 3, 6]],
    [["-B", "1:2:1", "-n", "3"], [1, 2, 1, 3]],
    [["-B", "1:2:1", "-N", "2"], [1, 2, 1, 4]],
    [["-B", "1:2:1", "--ntasks-per-node=1"], [1, 2, 1, 0]],
  ] as const)("%j", (argv, expected) => {
    const b = built([...argv]);
    expect(shape(b)).toEqual(expected);
    expect(b.warnings.join("\n")).not.toContain("not supported");
  });

  it.each([
    // oracle 22.05 NumTasks: a fixed -N counts sockets x cores x threads however they were asked for; a range does not
    [["--threads-per-core=2", "-N1"], 2],
    [["--threads-per-core=2", "-N2"], 4],
    [["--threads-per-core=3", "-N1"], 3],
    [["--cores-per-socket=2", "-N1"], 2],
    [["--sockets-per-node=2", "-N1"], 2],
    [["--threads-per-core=2", "--cores-per-socket=2", "-N1"], 4],
    [["-B", "1:2:1", "--threads-per-core=2", "-N1"], 4],
    [["--threads-per-core=2", "-N1", "-c2"], 2],
    [["--threads-per-core=2"], 0],
    [["--threads-per-core=2", "--cores-per-socket=2"], 0],
    [["--threads-per-core=2", "-N", "2-4"], 0],
    [["-B", "1:2:1", "-N1-3"], 0],
    [["--threads-per-core=2", "-N1", "--ntasks-per-node=1"], 0],
    [["--threads-per-core=1", "-N1"], 0],
    // without -N, a -w list is a fixed node count of its distinct nodes (differential seed 13718)
    [["-w", "n[1-4]", "-c3", "--threads-per-core=2"], 8],
    [["-w", "n[1-2]", "--threads-per-core=2"], 4],
    [["-w", "n1", "--threads-per-core=2"], 2],
    [["-w", "n[1-2]", "--cores-per-socket=2"], 4],
    [["-w", "n[1-2]", "-B", "1:2:2"], 8],
    [["-w", "n1", "-B", "1:2:1", "-c", "2"], 2],
    [["-w", "n[1-2]", "-n", "3", "--threads-per-core=2"], 3],
    [["-w", "n[1-2]", "-N2", "--threads-per-core=2"], 4],
  ] as const)("%j: NumTasks from the node's CPUs (%i: none set)", (argv, ntasks) => {
    expect(built([...argv]).spec.ntasks).toBe(ntasks);
  });

  it("an empty value changes nothing", () => {
    expect(shape(built(["-B", ""]))).toEqual(shape(built([])));
  });

  it.each([
    ["x", "first"], ["1:x", "second"], ["1:2:x", "third"], ["-1", "first"], ["1.5", "first"],
  ])("-B %s is refused naming the %s part, exit 1", (value, ordinal) => {
    const r = sbatch(["-B", value]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.message).toBe(`Invalid numeric value "${value.split(":").pop()}" for ${ordinal} arg of -B.`);
    expect(r.error.exitCode).toBe(1);
  });
});

describe("socket/core/thread and per-socket/per-core task counts kept in 16 bits (oracle 22.05, differential seed 9129)", () => {
  const fields = { "sockets-per-node": "socketsPerNode", "cores-per-socket": "coresPerSocket", "threads-per-core": "threadsPerCore", "ntasks-per-socket": "ntasksPerSocket", "ntasks-per-core": "ntasksPerCore" } as const;
  it.each([
    // value, what scontrol show job showed (undefined/0: "*"; 4294967296 showed 0, which Spur shows as *)
    ["4", 4], ["70000", 4464], ["65537", 1], ["3000000000", 24064], ["65534", undefined],
    ["4294967296", undefined], ["4294967297", 1],
  ] as const)("=%s is kept as %s", (value, kept) => {
    for (const [name, field] of Object.entries(fields)) {
      const got = built([`--${name}=${value}`]).spec[field];
      expect(got === 0 ? undefined : got, name).toBe(kept);
    }
  });

  it.each(["65535", "2147483647"])("=%s is 65535: not set for the task counts, kept for sockets, cores and threads", (value) => {
    for (const [name, field] of Object.entries(fields)) {
      const got = built([`--${name}=${value}`]).spec[field];
      expect(got === 0 ? undefined : got, name).toBe(name.startsWith("ntasks") ? undefined : 65535);
    }
  });

  it("a count at or past a C long is refused naming the long's largest value, exit 1; zero is invalid", () => {
    const r = sbatch(["--ntasks-per-core=99999999999999999999"]);
    expect(r.ok ? undefined : [r.error.message, r.error.exitCode]).toEqual(["Numeric argument (9223372036854775807) to big for --ntasks-per-core.", 1]);
    const z = sbatch(["--ntasks-per-socket=0"]);
    expect(z.ok ? undefined : [z.error.message, z.error.exitCode]).toEqual(['Invalid numeric value "0" for --ntasks-per-socket.', 1]);
  });

  it("a later value that comes out unset clears an earlier one", () => {
    expect(built(["--ntasks-per-core=2", "--ntasks-per-core=65535"]).spec.ntasksPerCore).toBeUndefined();
  });
});

describe("--core-spec / --thread-spec at AllowSpecResourcesUsage=No (Slurm's default)", () => {
  it.each([
    [["-S", "1"], "-S"], [["--core-spec=2"], "-S"], [["--thread-spec=1"], "--thread-spec"], [["-S", "0"], "-S"],
  ])("%j: Slurm's error line, the job submitted without it", (argv, shown) => {
    const b = built([...argv]);
    expect(b.warnings).toContain(`error: Ignoring ${shown} since it's not allowed by configuration (AllowSpecResourcesUsage = No)`);
    expect(b.warnings.join("\n")).not.toContain("not supported by Spur");
  });

  it.each([
    [["-S", "abc"], 'Invalid numeric value "abc" for --core-spec.'],
    [["-S", "-1"], 'Invalid numeric value "-1" for --core-spec.'],
    [["--thread-spec=x"], 'Invalid numeric value "x" for --thread-spec.'],
    [["--thread-spec=0"], 'Invalid numeric value "0" for --thread-spec.'], // differential seed 8078
  ])("%j is refused with exit 1", (argv, message) => {
    const r = sbatch([...argv]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect([r.error.message, r.error.exitCode]).toEqual([message, 1]);
  });
});

describe("--core-spec with --thread-spec (oracle 22.05, differential seed 12334)", () => {
  const NOT_ALLOWED = (shown: string) => `error: Ignoring ${shown} since it's not allowed by configuration (AllowSpecResourcesUsage = No)`;
  function submit(argv: string[], env: Record<string, string> = {}, directives: string[] = []): Result<Built> {
    const parsed = parseArgs("sbatch", argv);
    if (!parsed.ok) return parsed;
    const ctx = { cmd: "sbatch" as const, argv, env, invoker: INVOKER, now: 1_800_000_000 };
    const text = `#!/bin/sh\n${directives.map((d) => `#SBATCH ${d}\n`).join("")}true\n`;
    return sbatchRequest(ctx, parsed.value.options, { text, from: "file", path: "job.sh", args: [] });
  }
  const fatal = (r: Result<Built>) => (r.ok ? undefined : [r.error.code, r.error.message, r.error.exitCode]);
  const OPTIONS = ["Fatal", "-S/--core-spec and --thred-spec options are mutually exclusive", 1];

  it.each([
    [["--core-spec=0", "--thread-spec=2"], []],
    [["--thread-spec=1", "--thread-spec=2", "--core-spec=1"], []],
    [["-S", "2"], ["--thread-spec=1"]],
  ])("both as options (%j, #SBATCH %j) is fatal", (argv, directives) => {
    expect(fatal(submit(argv, {}, directives))).toEqual(OPTIONS);
  });

  it("both from input variables is fatal, unless the command line gives one", () => {
    const env = { SBATCH_CORE_SPEC: "1", SBATCH_THREAD_SPEC: "2" };
    expect(fatal(submit([], env))).toEqual(["Fatal", "Both --core-spec and --thread-spec set using environment variables. Those options are mutually exclusive.", 1]);
    const r = submit(["-S", "1"], env);
    expect(r.ok ? r.value.warnings : r.error).toEqual([NOT_ALLOWED("-S")]);
  });

  it.each([
    [{ SBATCH_CORE_SPEC: "1" }, ["--thread-spec=2"], [], "--thread-spec"],
    [{ SBATCH_THREAD_SPEC: "1" }, ["-S", "2"], [], "-S"],
    [{ SBATCH_THREAD_SPEC: "2" }, [], ["-S 1"], "--thread-spec"],
    [{ SBATCH_CORE_SPEC: "2" }, [], ["--thread-spec=1"], "-S"],
  ])("one from a variable, the other as an option (%j %j %j): the later one's line only", (env, argv, directives, shown) => {
    const r = submit(argv, env, directives);
    expect(r.ok ? r.value.warnings : r.error).toEqual([NOT_ALLOWED(shown)]);
  });
});

describe("--use-min-nodes, --wait-all-nodes, --delay-boot", () => {
  it("--use-min-nodes is recorded for placement, without a warning", () => {
    const b = built(["--use-min-nodes", "-N", "1-3"]);
    expect([b.spec.useMinNodes, b.warnings]).toEqual([true, []]);
  });

  it("--wait-all-nodes=0|1 is accepted silently (Spur's nodes are up once allocated); other values refused as Slurm does", () => {
    expect(built(["--wait-all-nodes=1"]).warnings).toEqual([]);
    const r = sbatch(["--wait-all-nodes=2"]);
    expect(r.ok ? undefined : [r.error.message, r.error.exitCode]).toEqual(["Invalid --wait-all-nodes specification", 255]);
  });

  it.each([["5", 300], ["90", 5400], ["1:30", 90], ["1-0", 86400], ["2:00:00", 7200], ["0", 0]])("--delay-boot=%s is %i s (oracle DelayBoot=)", (value, sec) => {
    const b = built([`--delay-boot=${value}`]);
    expect([b.spec.delayBootSec, b.warnings]).toEqual([sec, []]);
  });

  it("--delay-boot=bogus is refused, exit 255", () => {
    const r = sbatch(["--delay-boot=bogus"]);
    expect(r.ok ? undefined : [r.error.message, r.error.exitCode]).toEqual(["Invalid --delay-boot specification", 255]);
  });
});
