/**
 * @module agent/metrics-read
 * Reads the agent's spool (and the step task groups it runs) into the snapshot that
 * agent/metrics.ts renders. Read-only: it never changes a job folder.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { isAlive, jobDir, listJobIds, readPid } from "./spool.ts";
import { stepGroups } from "./tasks.ts";
import type { AgentJobSnapshot } from "./metrics.ts";

export function readAgentSnapshot(spool: string): AgentJobSnapshot[] {
  const ids = new Set([...listJobIds(spool), ...stepGroups.keys()]);
  return [...ids].sort((a, b) => a - b).map((jobId) => {
    const dir = jobDir(spool, jobId);
    const batch = ["stepd.pid", "child.pid"] as const;
    const own = batch.filter((f) => isAlive(readPid(dir, f))).length;
    const steps = [...(stepGroups.get(jobId) ?? [])].filter((pid) => isAlive(pid)).length;
    return { jobId, ended: existsSync(join(dir, "status.json")), processes: own + steps };
  });
}
