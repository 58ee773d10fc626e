import { describe, expect, it } from "vitest";
import { parseArgs, USAGE_ERROR } from "../../../src/compat/options/parse-args.ts";
import type { Command } from "../../../src/compat/options/table.ts";

/** [name, value] pairs plus operands, for compact expectations. */
function pairs(cmd: Command, argv: string[]): { opts: [string, string | undefined][]; operands: string[] } | string {
  const r = parseArgs(cmd, argv);
  if (!r.ok) return r.error.message;
  return { opts: r.value.options.map((o) => [o.def.name, o.value]), operands: r.value.operands };
}

describe("getopt_long semantics", () => {
  it.each([
    ["--time=10", [["time", "10"]], []],
    ["--time 10", [["time", "10"]], []],
    ["--time=", [["time", ""]], []],
    ["-t10", [["time", "10"]], []],
    ["-t 10", [["time", "10"]], []],
    ["-n4", [["ntasks", "4"]], []],
    ["-vv", [["verbose", undefined], ["verbose", undefined]], []],
    ["-Hv", [["hold", undefined], ["verbose", undefined]], []],
    ["-Hn4", [["hold", undefined], ["ntasks", "4"]], []],
    ["-Hn 4", [["hold", undefined], ["ntasks", "4"]], []],
    ["--part=gpu", [["partition", "gpu"]], []],
    ["--job=x", [["job-name", "x"]], []],
    ["--wra=hostname", [["wrap", "hostname"]], []],
    ["--nice", [["nice", undefined]], []],
    ["--nice=5", [["nice", "5"]], []],
    ["--nice 5 a", [["nice", undefined]], ["5", "a"]],
    ["-k", [["no-kill", undefined]], []],
    ["-koff", [["no-kill", "off"]], []],
    ["--exclusive=user", [["exclusive", "user"]], []],
    ["job.sh -n 4 --time=5", [], ["job.sh", "-n", "4", "--time=5"]],
    ["-n 2 job.sh a b", [["ntasks", "2"]], ["job.sh", "a", "b"]],
    ["-- -n 2", [], ["-n", "2"]],
    ["-n 2 - x", [["ntasks", "2"]], ["-", "x"]],
    ["--mem 4G", [["mem", "4G"]], []],
    ["--tasks-per-node=2", [["tasks-per-node", "2"]], []],
  ] as const)("sbatch %s", (line, opts, operands) => {
    expect(pairs("sbatch", line.split(" "))).toEqual({ opts, operands });
  });

  it.each([
    ["sbatch", "--bogus", "sbatch: unrecognized option '--bogus'"],
    ["sbatch", "--bogus=1", "sbatch: unrecognized option '--bogus=1'"],
    ["sbatch", "-Z", "sbatch: invalid option -- 'Z'"],
    ["sbatch", "-vZ", "sbatch: invalid option -- 'Z'"],
    ["sbatch", "--time", "sbatch: option '--time' requires an argument"],
    ["sbatch", "-t", "sbatch: option requires an argument -- 't'"],
    ["sbatch", "--hold=yes", "sbatch: option '--hold' doesn't allow an argument"],
    ["sbatch", "--ho=yes", "sbatch: option '--hold' doesn't allow an argument"],
    ["sbatch", "--cpu=2", "sbatch: option '--cpu=2' is ambiguous; possibilities: '--cpu-freq' '--cpus-per-gpu' '--cpus-per-task'"],
    ["sbatch", "--ti=5", "sbatch: option '--ti=5' is ambiguous; possibilities: '--time' '--time-min'"],
    ["srun", "--bogus", "srun: unrecognized option '--bogus'"],
    ["salloc", "-l", "salloc: invalid option -- 'l'"],
  ] as const)("%s %s fails like getopt", (cmd, arg, first) => {
    const r = parseArgs(cmd, [arg]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toEqual({ code: USAGE_ERROR, message: `${first}\nTry "${cmd} --help" for more information`, exitCode: 255 });
  });

  it("prefixes naming one option through aliases are not ambiguous (srun --cpu_b)", () => {
    expect(pairs("srun", ["--cpu_b=none", "x"])).toEqual({ opts: [["cpu_bind", "none"]], operands: ["x"] });
    expect(pairs("srun", ["--tasks-per=2", "x"])).toEqual({ opts: [["tasks-per-node", "2"]], operands: ["x"] });
  });

  it.each([
    ["srun", "-N2 -l hostname", [["nodes", "2"], ["label", undefined]], ["hostname"]],
    ["srun", "--pty bash", [["pty", undefined]], ["bash"]],
    ["srun", "-W 30 sleep 1", [["wait", "30"]], ["sleep", "1"]],
    ["srun", "-n3 -l hostname -l", [["ntasks", "3"], ["label", undefined]], ["hostname", "-l"]],
    ["salloc", "-N1 --no-shell", [["nodes", "1"], ["no-shell", undefined]], []],
    ["salloc", "-K bash", [["kill-command", undefined]], ["bash"]],
    ["salloc", "-KINT bash", [["kill-command", "INT"]], ["bash"]],
  ] as const)("%s %s", (cmd, line, opts, operands) => {
    expect(pairs(cmd, line.split(" "))).toEqual({ opts, operands });
  });
});
