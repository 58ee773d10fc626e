/**
 * `scontrol write batch_script JOBID [FILE|-]` as the 22.05 oracle answers it (recorded by
 * hand on 2026-12-05): the script to slurm-JOBID.sh, to FILE, or to stdout with `-`; the
 * job id read as a leading number; retrieval and file failures on stderr with exit 0; only
 * the command's own words (too few, too many, an unknown sub-command) exit 1.
 */
import { describe, expect, it } from "vitest";
import { scontrolMain } from "../../../src/cli/scontrol.ts";
import { RpcError } from "../../../src/net/ctl-port.ts";
import { fakePort } from "./helpers.ts";

const SCRIPT = "#!/bin/bash\n#SBATCH -J wbs\nsleep 30\n";

function run(argv: string[], opts: { refuse?: RpcError; writeError?: string } = {}) {
  const { port } = fakePort({ now: 1000 });
  const asked: number[] = [];
  const written: [string, string][] = [];
  port.ctl.getJobScript = async ({ jobId }) => {
    asked.push(jobId);
    if (opts.refuse !== undefined) throw opts.refuse;
    if (jobId !== 312) throw new RpcError("invalid_argument", "Invalid job id specified", 2017);
    return { script: SCRIPT };
  };
  port.writeFile = async (path, text) => {
    if (opts.writeError !== undefined) return opts.writeError;
    written.push([path, text]);
    return undefined;
  };
  return scontrolMain(["write", ...argv], port).then((r) => ({ ...r, asked, written }));
}

describe("scontrol write batch_script", () => {
  it("writes slurm-JOBID.sh, or FILE, and says so; '-' prints the script", async () => {
    const r = await run(["batch_script", "312"]);
    expect([r.stdout, r.stderr, r.exitCode, r.written]).toEqual(["batch script for job 312 written to slurm-312.sh\n", "", 0, [["slurm-312.sh", SCRIPT]]]);
    expect((await run(["batch_script", "312", "out.sh"])).stdout).toBe("batch script for job 312 written to out.sh\n");
    const dash = await run(["batch_script", "312", "-"]);
    expect([dash.stdout, dash.written]).toEqual([SCRIPT, []]);
  });

  it("reads the job id as a leading number, and takes 'batch' and any case for batch_script", async () => {
    for (const id of ["312_1", "312.0", "312.batch"]) expect((await run(["batch_script", id])).asked).toEqual([312]);
    expect((await run(["BATCH_SCRIPT", "312", "-"])).stdout).toBe(SCRIPT);
    expect((await run(["batch", "312", "-"])).stdout).toBe(SCRIPT);
  });

  it("reports retrieval and file failures on stderr and still exits 0", async () => {
    expect(await run(["batch_script", "99999"])).toMatchObject({ stdout: "", stderr: "job script retrieval failed: Invalid job id specified\n", exitCode: 0 });
    const abc = await run(["batch_script", "abc"]);
    expect([abc.stderr, abc.exitCode, abc.asked]).toEqual(["job script retrieval failed: Invalid job id specified\n", 0, []]);
    const other = await run(["batch_script", "312", "-"], { refuse: new RpcError("permission_denied", "Invalid user id", 2010) });
    expect([other.stdout, other.stderr, other.exitCode]).toEqual(["", "job script retrieval failed: Invalid user id\n", 0]);
    const none = await run(["batch_script", "312"], { refuse: new RpcError("invalid_argument", "Job script not specified", 2009) });
    expect(none.stderr).toBe("job script retrieval failed: Job script not specified\n");
    const file = await run(["batch_script", "312", "/nonexist/x"], { writeError: "No such file or directory" });
    expect([file.stdout, file.stderr, file.exitCode]).toEqual(["", "failed to open file `/nonexist/x`: No such file or directory\n", 0]);
  });

  it("without a job id does nothing; its own words' mistakes exit 1", async () => {
    expect(await run(["batch_script"])).toMatchObject({ stdout: "", stderr: "", exitCode: 0, asked: [] });
    expect(await scontrolMain(["write"], fakePort({ now: 1000 }).port)).toEqual({ stdout: "", stderr: "too few arguments for keyword:write\n", exitCode: 1 });
    expect(await run(["batch_script", "312", "a", "b"])).toMatchObject({ stderr: "too many arguments for keyword:write\n", exitCode: 1 });
    for (const word of ["foo", "batc", "b"]) expect(await run([word, "312"])).toMatchObject({ stderr: `invalid write argument:${word}\n`, exitCode: 1 });
    expect((await scontrolMain(["writ", "batch_script", "312"], fakePort({ now: 1000 }).port)).stderr).toBe("invalid keyword: writ\n");
  });
});
