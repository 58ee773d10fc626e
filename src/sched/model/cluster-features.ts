/**
 * @module sched/model/cluster-features
 * Every feature some node of the cluster has, for the submit-time check of --constraint and
 * --prefer (apply-submit.ts knownFeatures). Splitting every node's feature text on every
 * submission costs milliseconds at 10k nodes, on every replica (issue 16), so the set is kept
 * per nodes map with the feature texts it came from, and rebuilt when any node's text (or the
 * node list) differs: compared on every use, so the kept set is always what a rebuild gives.
 * Nothing kept is replicated state.
 */
import type { ClusterState } from "./types.ts";

interface Kept {
  texts: string[];
  have: ReadonlySet<string>;
}

const kept = new WeakMap<ClusterState["nodes"], Kept>();

/** The features of all nodes. */
export function clusterFeatures(state: ClusterState): ReadonlySet<string> {
  const was = kept.get(state.nodes);
  if (was !== undefined && sameTexts(was.texts, state)) return was.have;
  const texts: string[] = [];
  const have = new Set<string>();
  for (const n of state.nodes.values()) {
    texts.push(n.info.features);
    for (const f of n.info.features.split(",")) if (f !== "") have.add(f);
  }
  kept.set(state.nodes, { texts, have });
  return have;
}

function sameTexts(texts: readonly string[], state: ClusterState): boolean {
  if (texts.length !== state.nodes.size) return false;
  let i = 0;
  for (const n of state.nodes.values()) if (texts[i++] !== n.info.features) return false;
  return true;
}
