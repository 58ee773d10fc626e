/**
 * @module ctld/job-submit-hook
 * The site's job_submit hook (Slurm's job_submit plugins, as one executable):
 * spur.conf `JobSubmitScript=/path` is run by the controller for every
 * submission before it is logged, with the job as JSON on its standard input:
 *   {"job": <the JobSpec as sbatch/srun/salloc sent it>, "submitUid": 1000, "submitUser": "alice"}
 * It answers by its exit status and standard output:
 *   exit 0, no output             accept the job unchanged;
 *   exit 0, {"set": {"field": v}} accept it with these JobSpec fields changed (each must be an
 *                                 existing scalar field and keep its JSON type: the hook cannot
 *                                 invent fields or change a number into text);
 *   exit non-zero                 reject it; the first line of standard error is the message the
 *                                 user sees ("sbatch: error: Batch job submission failed: <line>").
 * It runs without a shell and with PATH=/usr/bin:/bin, at most `timeoutMs`; a hook that cannot
 * run, times out or answers something else rejects the job (fail closed, as a broken lua script
 * does in Slurm). Its changes go into the submit command, so replaying the log never runs it again.
 */
import { spawn } from "node:child_process";

export type HookVerdict = { ok: true; changes: Record<string, unknown> } | { ok: false; message: string };

/** The hook's answer → the verdict (pure). */
export function readHookAnswer(spec: Record<string, unknown>, exitCode: number | null, stdout: string, stderr: string): HookVerdict {
  if (exitCode !== 0) {
    const line = stderr.split("\n").find((l) => l.trim() !== "")?.trim();
    return { ok: false, message: line ?? "Rejected by the site's job_submit hook" };
  }
  if (stdout.trim() === "") return { ok: true, changes: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return { ok: false, message: "job_submit hook answered something that is not JSON" };
  }
  const set = (parsed as { set?: unknown }).set;
  if (typeof set !== "object" || set === null || Array.isArray(set)) return { ok: false, message: 'job_submit hook answer has no "set" object' };
  for (const [key, value] of Object.entries(set)) {
    const have = spec[key];
    const scalar = ["string", "number", "boolean"].includes(typeof value);
    if (!(key in spec) || !scalar || typeof have !== typeof value) return { ok: false, message: `job_submit hook cannot set ${key}` };
  }
  return { ok: true, changes: set as Record<string, unknown> };
}

export interface HookInput {
  spec: Record<string, unknown>;
  uid: number;
  user: string;
}

/** Run the hook and read its verdict. */
export function runJobSubmitHook(path: string, input: HookInput, timeoutMs = 10_000): Promise<HookVerdict> {
  return new Promise((resolve) => {
    const child = spawn(path, [], { env: { PATH: "/usr/bin:/bin", SPUR_CONTEXT: "job_submit" }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let settled = false;
    const finish = (v: HookVerdict) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(v);
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ ok: false, message: "job_submit hook timed out" });
    }, timeoutMs);
    child.stdout.on("data", (b: Buffer) => {
      if (stdout.length < 1 << 20) stdout += b.toString("utf8");
    });
    child.stderr.on("data", (b: Buffer) => {
      if (stderr.length < 1 << 16) stderr += b.toString("utf8");
    });
    child.once("error", (e) => finish({ ok: false, message: `job_submit hook cannot run: ${(e as NodeJS.ErrnoException).code ?? e.message}` }));
    child.once("close", (code) => finish(readHookAnswer(input.spec, code, stdout, stderr)));
    child.stdin.on("error", () => undefined); // a hook that does not read its input
    child.stdin.end(JSON.stringify({ job: input.spec, submitUid: input.uid, submitUser: input.user }));
  });
}
