/**
 * @module agent/report-ended
 * Reporting every ended batch script to the controller until it acknowledges it: the spool
 * keeps status.json across agent restarts, and the job folder goes only once the controller
 * took the report. A stepd that vanished without a status makes the job NODE_FAIL, and its
 * cgroup is emptied first. Failure policy: a controller away stops the round (after failing
 * over); the next turn tries again, nothing is lost.
 */
import type { ConsolaInstance } from "consola/core";
import { join } from "node:path";
import type { Clock } from "../lib/clock.ts";
import { killTree, removeTrees } from "./cgroup/fs.ts";
import type { ControllerLink } from "./controller-link.ts";
import { isOurStepd } from "./job-signal.ts";
import { jobDir, type LaunchFile, listJobIds, readJson, readPid, removeJobDir, type StatusFile, writeJson } from "./spool.ts";

export interface EndReportDeps {
  spool: string;
  nodeName: string;
  clock: Clock;
  logger: Pick<ConsolaInstance, "info">;
  /** Set once the link exists (the link calls this reporter on its turns). */
  link(): Pick<ControllerLink, "ctl" | "failover">;
}

export function createEndReporter(d: EndReportDeps): () => Promise<void> {
  const { spool, clock, logger } = d;
  const node = { name: d.nodeName };
  async function reportEnded(): Promise<void> {
    for (const jobId of listJobIds(spool)) {
      const dir = jobDir(spool, jobId);
      let status = readJson<StatusFile>(join(dir, "status.json"));
      if (status === undefined) {
        const stepd = readPid(dir, "stepd.pid");
        if (stepd === undefined || isOurStepd(dir, stepd, clock.now())) continue;
        // stepd vanished without a word (killed, node rebooted): the job is lost with it.
        status = { exitCode: 0, exitSignal: 9, outcome: "NODE_FAIL", endTime: clock.now() / 1000, message: "stepd lost" };
        await killOrphanedCgroup(dir);
        writeJson(join(dir, "status.json"), status);
      }
      try {
        const restarts = readJson<LaunchFile>(join(dir, "launch.json"))?.restarts;
        await d.link().ctl().batchComplete({ node: node.name, jobId, ...status, ...(restarts === undefined ? {} : { restarts }) }, { timeoutMs: 5000 });
        removeJobDir(spool, jobId);
        logger.info({ message: "job end reported", jobId, exitCode: status.exitCode, outcome: status.outcome, ...(status.message ? { why: status.message } : {}) });
      } catch (error) {
        d.link().failover(error);
        return; // controller away: try again on the next turn
      }
    }
  }

  /** A job whose stepd vanished: nothing of it may keep running (its cgroup still knows every process). */
  async function killOrphanedCgroup(dir: string): Promise<void> {
    const cg = readJson<LaunchFile>(join(dir, "launch.json"))?.cgroup;
    if (cg === undefined) return;
    await killTree(cg.kill, cg.trackDir);
    removeTrees(cg.jobDirs);
  }
  return reportEnded;
}
