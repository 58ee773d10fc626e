/**
 * Site script pieces: the Prolog/Epilog environment, and the TaskProlog /
 * TaskEpilog wrapper run through a real /bin/sh (export, unset, print lines;
 * the task's exit status kept; a failing TaskProlog stops the task).
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adminScriptEnv, taskWrapCommand } from "../../../src/agent/prolog.ts";

const dir = mkdtempSync(join(tmpdir(), "taskprolog-"));
const script = (name: string, body: string) => {
  const p = join(dir, name);
  writeFileSync(p, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return p;
};
const run = (argv: string[], env: Record<string, string> = {}) => {
  const [cmd, ...args] = argv;
  const r = spawnSync(cmd ?? "true", args, { encoding: "utf8", env: { PATH: "/usr/bin:/bin", ...env } });
  return { out: r.stdout, err: r.stderr, code: r.status };
};

describe("taskWrapCommand", () => {
  it("leaves argv alone without scripts", () => {
    expect(taskWrapCommand("", "", ["a", "b c"])).toEqual(["a", "b c"]);
  });
  it("applies export/unset/print lines of the TaskProlog, values with spaces and dollars kept", () => {
    const tp = script("tp", 'echo "export A=one two"\necho \'export B=$HOME\'\necho "unset GONE"\necho "print hi there"\necho "ignored line"');
    const r = run(taskWrapCommand(tp, "", ["/bin/sh", "-c", 'echo "A=$A B=$B GONE=${GONE-unset} ctx=${SLURM_SCRIPT_CONTEXT-none}"']), { GONE: "x" });
    expect(r.out).toBe("hi there\nA=one two B=$HOME GONE=unset ctx=none\n");
  });
  it("runs the TaskEpilog after the task and keeps the task's exit status", () => {
    const te = script("te", `echo "$SLURM_SCRIPT_CONTEXT" > ${dir}/te.out`);
    const r = run(taskWrapCommand("", te, ["/bin/sh", "-c", "exit 7"]));
    expect(r.code).toBe(7);
    expect(run(["/bin/cat", join(dir, "te.out")]).out).toBe("epilog_task\n");
  });
  it("does not run the task when the TaskProlog fails", () => {
    const bad = script("bad", "exit 2");
    const r = run(taskWrapCommand(bad, "", ["/bin/echo", "ran"]));
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toBe("spurd: error: TaskProlog failed\n");
  });
});

describe("adminScriptEnv", () => {
  it("carries the job's facts and GPUs, and no PATH", () => {
    const env = adminScriptEnv({
      jobId: 5, user: "u", uid: 1000, gid: 100, partition: "p", nodelist: "n[1-2]", account: "a", name: "j", clusterName: "c",
      node: "n1", gpuIndices: [3, 1], workDir: "/w",
    }, "epilog_slurmd");
    expect(env).toMatchObject({ SLURM_JOB_ID: "5", SLURM_SCRIPT_CONTEXT: "epilog_slurmd", SLURM_JOB_GPUS: "1,3", CUDA_VISIBLE_DEVICES: "1,3", SLURMD_NODENAME: "n1" });
    expect(env.PATH).toBeUndefined();
  });
});
