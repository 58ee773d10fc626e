/**
 * The TRES-per-socket and per-task texts in `squeue --json` (22.05's document) and in
 * GET jobs/ (current Slurm's). They used to be "" whatever the job asked for.
 * Oracle 22.05, squeue --json: --gpus-per-socket=1 gives tres_per_socket "gres:gpu:1";
 * --gpus-per-task=mi300x:1 gives tres_per_task "gres:gpu:mi300x:1"; -c2 alone gives "".
 */
import { describe, expect, it } from "vitest";
import { jobToOpenapi } from "../../../src/compat/format/json-jobs.ts";
import { jobInfo } from "../../../src/net/rest/serialize-job.ts";
import { job } from "./fixtures.ts";

describe("tres_per_socket and tres_per_task", () => {
  const cases = [
    { over: { tresPerSocket: "gres/gpu:1" }, squeue: { socket: "gres:gpu:1", task: "" }, rest: { socket: "gres/gpu:1", task: "" } },
    { over: { tresPerTask: "cpu=2,gres/gpu:mi300x=1" }, squeue: { socket: "", task: "gres:gpu:mi300x:1" }, rest: { socket: "", task: "cpu=2,gres/gpu:mi300x=1" } },
    { over: { tresPerTask: "cpu=2" }, squeue: { socket: "", task: "" }, rest: { socket: "", task: "cpu=2" } },
    { over: {}, squeue: { socket: "", task: "" }, rest: { socket: "", task: "" } },
  ];
  for (const c of cases) {
    it(`squeue --json and REST for ${JSON.stringify(c.over)}`, () => {
      const j = job(c.over);
      const doc = jobToOpenapi(j, "spur");
      expect({ socket: doc.tres_per_socket, task: doc.tres_per_task }).toEqual(c.squeue);
      const rest = jobInfo(j, "spur") as unknown as Record<string, unknown>;
      expect({ socket: rest.tres_per_socket, task: rest.tres_per_task }).toEqual(c.rest);
    });
  }
});
