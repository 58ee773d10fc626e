/**
 * @module sched/plan/preempt-config
 * PreemptType and PreemptMode as the controller reads them from spur.conf (pure). A leaf of
 * its own: the cluster state's types carry the config, and the planner that uses it reads
 * that state, so the config cannot live in the planner without an import cycle.
 */

export type PreemptType = "preempt/none" | "preempt/partition_prio" | "preempt/qos";
export type PreemptMode = "OFF" | "CANCEL" | "REQUEUE" | "SUSPEND";

export interface PreemptConfig {
  type: PreemptType;
  mode: PreemptMode;
}

/** From the lower-cased global keys of spur.conf (PreemptType, PreemptMode). */
export function preemptConfigFrom(g: Map<string, string>): PreemptConfig {
  const t = (g.get("preempttype") ?? "preempt/none").toLowerCase();
  const type: PreemptType = t === "preempt/partition_prio" || t === "preempt/qos" ? t : "preempt/none";
  const m = (g.get("preemptmode") ?? "OFF").toUpperCase().split(",")[0] ?? "OFF";
  const mode: PreemptMode = m === "CANCEL" || m === "REQUEUE" || m === "SUSPEND" ? m : "OFF";
  return { type, mode };
}
