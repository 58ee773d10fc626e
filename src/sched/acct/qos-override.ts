/**
 * @module sched/acct/qos-override
 * Slurm's limit hierarchy between a job's QOS and its association chain: a limit set on the
 * QOS is the one in force, and the associations' limit of the same kind (on the same TRES,
 * for TRES limits) is not looked at (resource_limits.html, "Hierarchy": the first point of
 * Job QOS, user association, account associations ascending, where a limit is defined is
 * used). `underQos` gives the chain as the checks should see it; the usage charged to the
 * associations is not changed, only which limits are compared with it. Kinds that pair up:
 * GrpJobs, GrpSubmitJobs, GrpTRES, GrpTRESMins, GrpWall, MaxTRESPerJob, MaxTRESMins and
 * MaxWall by name; the association's MaxJobs and MaxSubmitJobs with the QOS's per-user
 * MaxJobsPerUser and MaxSubmitJobsPerUser. Spur has no partition QOS, so the QOS is the
 * job's own. Pure.
 */
import type { AssocLimits, AssocRecord, QosLimits, TresLimit } from "./types.ts";

/** The association's TRES limit without the TRES the QOS limits (undefined when none is left). */
function withoutTres(assoc: TresLimit | undefined, qos: TresLimit | undefined): TresLimit | undefined {
  if (assoc === undefined || qos === undefined) return assoc;
  const left: TresLimit = {};
  let any = false;
  for (const [name, max] of Object.entries(assoc) as [keyof TresLimit, number][]) {
    if (qos[name] !== undefined) continue;
    left[name] = max;
    any = true;
  }
  return any ? left : undefined;
}

/** One association's limits as they hold under a QOS with limits `q`. */
export function assocLimitsUnderQos(l: AssocLimits, q: QosLimits): AssocLimits {
  const out: AssocLimits = {};
  const keep = <K extends keyof AssocLimits>(key: K, value: AssocLimits[K] | undefined): void => {
    if (value !== undefined) out[key] = value;
  };
  keep("grpJobs", q.grpJobs === undefined ? l.grpJobs : undefined);
  keep("grpSubmitJobs", q.grpSubmitJobs === undefined ? l.grpSubmitJobs : undefined);
  keep("grpTres", withoutTres(l.grpTres, q.grpTres));
  keep("grpTresMins", withoutTres(l.grpTresMins, q.grpTresMins));
  keep("grpWallMin", q.grpWallMin === undefined ? l.grpWallMin : undefined);
  keep("maxJobs", q.maxJobsPerUser === undefined ? l.maxJobs : undefined);
  keep("maxSubmitJobs", q.maxSubmitJobsPerUser === undefined ? l.maxSubmitJobs : undefined);
  keep("maxTresPerJob", withoutTres(l.maxTresPerJob, q.maxTresPerJob));
  keep("maxTresMinsPerJob", withoutTres(l.maxTresMinsPerJob, q.maxTresMinsPerJob));
  keep("maxWallMin", q.maxWallMin === undefined ? l.maxWallMin : undefined);
  return out;
}

/** The association chain (leaf first) with the limits its QOS hides taken out; the same array when the QOS sets none. */
export function underQos(chain: readonly AssocRecord[], q: { limits: QosLimits } | undefined): readonly AssocRecord[] {
  if (q === undefined || Object.keys(q.limits).length === 0) return chain;
  return chain.map((a) => ({ ...a, limits: assocLimitsUnderQos(a.limits, q.limits) }));
}
