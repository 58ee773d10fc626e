/**
 * The job_submit hook's answers → verdicts (pure), and one run of a real
 * executable for the plumbing (stdin JSON, stderr message, time limit).
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readHookAnswer, runJobSubmitHook } from "../../../src/ctld/job-submit-hook.ts";

const spec = { name: "j", cpusPerTask: 1, comment: "", hold: false };

describe("readHookAnswer", () => {
  it("accepts unchanged on exit 0 without output", () => {
    expect(readHookAnswer(spec, 0, "", "")).toEqual({ ok: true, changes: {} });
  });
  it("takes changes of existing scalar fields of the same type", () => {
    expect(readHookAnswer(spec, 0, '{"set":{"comment":"x","cpusPerTask":2}}', "")).toEqual({ ok: true, changes: { comment: "x", cpusPerTask: 2 } });
  });
  it("rejects changes it cannot make, and answers that are not JSON", () => {
    expect(readHookAnswer(spec, 0, '{"set":{"nope":1}}', "")).toEqual({ ok: false, message: "job_submit hook cannot set nope" });
    expect(readHookAnswer(spec, 0, '{"set":{"hold":"yes"}}', "")).toEqual({ ok: false, message: "job_submit hook cannot set hold" });
    expect(readHookAnswer(spec, 0, '{"set":{"comment":["a"]}}', "").ok).toBe(false);
    expect(readHookAnswer(spec, 0, "ok", "").ok).toBe(false);
    expect(readHookAnswer(spec, 0, "[]", "").ok).toBe(false);
  });
  it("rejects on a non-zero exit with the first line of stderr", () => {
    expect(readHookAnswer(spec, 2, "", "\n  Too many GPUs  \nmore\n")).toEqual({ ok: false, message: "Too many GPUs" });
    expect(readHookAnswer(spec, null, "", "")).toEqual({ ok: false, message: "Rejected by the site's job_submit hook" });
  });
});

describe("runJobSubmitHook", () => {
  const dir = mkdtempSync(join(tmpdir(), "jobsubmit-"));
  const hook = (body: string) => {
    const p = join(dir, `h${Math.random().toString(36).slice(2)}`);
    writeFileSync(p, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return p;
  };
  it("feeds the job as JSON and reads the answer", async () => {
    const p = hook(`input=$(cat); case "$input" in *'"submitUser":"alice"'*) echo '{"set":{"comment":"seen"}}';; *) exit 1;; esac`);
    expect(await runJobSubmitHook(p, { spec, uid: 1000, user: "alice" })).toEqual({ ok: true, changes: { comment: "seen" } });
  });
  it("fails closed when the hook is missing or too slow", async () => {
    expect((await runJobSubmitHook(join(dir, "missing"), { spec, uid: 0, user: "root" })).ok).toBe(false);
    expect(await runJobSubmitHook(hook("sleep 5"), { spec, uid: 0, user: "root" }, 200)).toEqual({ ok: false, message: "job_submit hook timed out" });
  });
});
