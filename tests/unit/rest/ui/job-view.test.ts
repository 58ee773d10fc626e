/**
 * One job as the page's job view shows it (rest/ui/job-view): the fields, the GPUs it holds,
 * its steps with their measured usage, seff's efficiency as percentages, and the script or
 * the reason it is withheld.
 */
import { describe, expect, it } from "vitest";
import { jobDetail } from "../../../../src/net/rest/ui/job-view.ts";
import { emptyJobInfo } from "../../../../src/sched/model/records.ts";

const usage = { maxRssKib: 512 * 1024, maxRssNode: "n1", aveRssKib: 256 * 1024, maxVmsizeKib: 0, maxVmsizeNode: "", aveVmsizeKib: 0, userCpuSec: 300, systemCpuSec: 100, minCpuSec: 0, minCpuNode: "", ntasks: 1, maxPages: 0 };
const job = {
  ...emptyJobInfo(), jobId: 17, name: "train", user: "alice", uid: 1001, state: "COMPLETED", numCpus: 4, numNodes: 1, nodelist: "n1",
  startTime: 1000, endTime: 1200, tresAlloc: "cpu=4,mem=2G,node=1,gres/gpu=2",
  alloc: [{ node: "n1", cpus: 4, memMib: 2048, gpuIndices: [2, 3], tasks: 1 }],
  steps: [{ jobId: 17, stepId: -5, name: "batch", state: "COMPLETED", nodelist: "n1", ntasks: 1, cpus: 4, startTime: 1000, endTime: 1200, exitCode: 0, exitSignal: 0, alloc: [], tres: "", usage }],
};

describe("jobDetail", () => {
  it("gives the GPUs, the steps' usage and seff's efficiency", () => {
    const d = jobDetail(job, "c", 2000, [], { text: "#!/bin/sh\n" });
    expect(d.id).toBe("17");
    expect(d.gpus).toEqual([{ node: "n1", indices: [2, 3] }]);
    expect(d.steps).toMatchObject([{ id: "17.batch", userCpuSec: 300, systemCpuSec: 100, maxRssKib: 512 * 1024, measured: true }]);
    // 400 s of CPU over 200 s x 4 CPUs; 512 MiB of 2 GiB
    expect(d.efficiency).toMatchObject({ cpuPercent: 50, memPercent: 25, gpus: 2 });
    expect(d.script).toBe("#!/bin/sh\n");
    expect(d.fields).toContainEqual(["Ended", "1970-01-01T00:20:00Z"]);
  });

  it("says why the script is withheld", () => {
    const d = jobDetail({ ...job, state: "RUNNING" }, "c", 2000, [], { refused: "Access/permission denied" });
    expect(d.script).toBeUndefined();
    expect(d.scriptRefused).toBe("Access/permission denied");
    expect(d.fields.map(([k]) => k)).toContain("Ends by (time limit)");
  });
});
