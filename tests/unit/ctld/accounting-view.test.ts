/**
 * The accounting view of ListJobs (sacct, slurmdb/ routes): slurmdbd stores a job's comment
 * only with AccountingStoreFlags=job_comment. Oracle (22.05, flag unset): `sbatch
 * --comment=hello` shows Comment=hello in scontrol and squeue %k, an empty Comment in sacct.
 */
import { createConsola } from "consola";
import { describe, expect, it } from "vitest";
import { createController } from "../../../src/ctld/controller.ts";
import type { AgentLink } from "../../../src/ctld/agent-link.ts";
import { listJobViews } from "../../../src/ctld/views.ts";
import { CONF, cluster, spec, submit } from "../sched/builders.ts";

function controllerWith(conf: string) {
  const { state } = cluster(conf);
  const controller = createController({
    state, logger: createConsola({ level: -999 }), now: () => 100, agents: {} as AgentLink,
    replication: { propose: () => Promise.reject(new Error("unused")), isServing: () => false },
  });
  controller.applyCommitted(submit(spec({ comment: "hello" })), 1);
  return controller;
}

const comments = (c: ReturnType<typeof controllerWith>, accounting: boolean): string[] =>
  listJobViews(c, { includeFinished: true, jobIds: [], includeSteps: false, windowStart: 0, windowEnd: 0, squeueView: "", knownListVersion: "", accounting, sacctQuery: "" }, 100).map((j) => j.comment);

describe("accounting view of a job's comment", () => {
  it("is empty without AccountingStoreFlags=job_comment; squeue's and scontrol's view keep it", () => {
    const c = controllerWith(CONF);
    expect(comments(c, true)).toEqual([""]);
    expect(comments(c, false)).toEqual(["hello"]);
  });

  it("is the comment with job_comment among the flags (any case, any order)", () => {
    const c = controllerWith(`${CONF}\nAccountingStoreFlags=job_env,Job_Comment\n`);
    expect(comments(c, true)).toEqual(["hello"]);
  });
});
