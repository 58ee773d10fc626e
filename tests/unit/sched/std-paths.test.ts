/**
 * Output paths of a batch job: the record keeps the node's letters as written and joins the
 * working directory as given (oracle 22.05); the batch host gets them fully expanded.
 */
import { describe, expect, it } from "vitest";
import { launchStdPaths } from "../../../src/sched/model/std-paths.ts";
import { cluster, spec, submit } from "./builders.ts";

describe("batch output paths", () => {
  it("record: %N kept, WorkDir joined as given; launch: expanded on the batch host", () => {
    const c = cluster();
    const r = c.run(submit(spec({ hold: true, name: "t", workDir: "/w/sub/", stdOut: "%N_%x_%j.out", stdErr: "/abs/%n-%J.err" })));
    const job = c.state.jobs.get(r.ids[0] as number)!;
    const id = job.info.jobId;
    expect([job.info.stdOut, job.info.stdErr]).toEqual([`/w/sub//%N_t_${id}.out`, "/abs/%n-%J.err"]);
    job.info.batchHost = "n3";
    expect(launchStdPaths(job)).toMatchObject({ stdOut: `/w/sub//n3_t_${id}.out`, stdErr: `/abs/0-${id}.err`, stdIn: "/dev/null" });
  });
});
