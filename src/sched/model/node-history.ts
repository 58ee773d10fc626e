/**
 * @module sched/model/node-history
 * When each node was out of service: the spans it spent DOWN or drained, as slurmdbd's node
 * events record them (`sacctmgr show event`: a DOWN or DRAIN event from the state change to
 * the return to service). sreport's Down column is the TRES time inside these spans. A span
 * opens at the command that takes the node out and closes at the one that brings it back;
 * a change between DOWN and DRAIN closes one and opens the next. Each node keeps its last
 * MAX_SPANS spans (oldest dropped first), so the history is bounded. Pure: called by apply()
 * after it changes `down`/`drain`, with the command's time.
 */
import type { NodeDownSpan, NodeRecord } from "./types.ts";

/**
 * The spans a node keeps: every `listNodes` answer carries them (sinfo's too), so few; a node
 * out of service more often than that loses its oldest from sreport's Down.
 */
export const MAX_SPANS = 100;

/** Open, close or switch the node's current span to match its state at `at`. */
export function noteNodeService(node: NodeRecord, at: number): void {
  const out: NodeDownSpan["state"] | undefined = node.down ? "DOWN" : node.drain ? "DRAIN" : undefined;
  const spans = node.downSpans ?? [];
  const open = spans.length > 0 && spans[spans.length - 1]?.end === undefined ? spans[spans.length - 1] : undefined;
  if (open !== undefined && open.state === out) return;
  if (open !== undefined) open.end = Math.max(open.start, at);
  if (out !== undefined) {
    spans.push({ start: at, state: out, reason: node.info.reason });
    if (spans.length > MAX_SPANS) spans.splice(0, spans.length - MAX_SPANS);
  }
  if (spans.length > 0) node.downSpans = spans;
}
