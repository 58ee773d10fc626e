/**
 * @module compat/pmi/fence
 * srun's side of a PMI fence across the nodes of a step: every node's agent calls in once per
 * round with its tasks' puts; when all `nodes` have called for a round, the round is complete and
 * its answer is the union of their puts (a later node's value wins for a key put twice, as a
 * KVS would keep the last). Pure: the shell (roles/cli/srun-launcher.ts) holds the calls open.
 */

export interface FenceArrival {
  /** The whole KVS of the round once every node is in; undefined while nodes are missing. */
  complete?: Record<string, string>;
  /** Why the call is refused ("" = accepted). */
  error: string;
}

/** Rounds kept at most at once (a node can be at most one round ahead of the slowest). */
const ROUNDS_OPEN_MAX = 4;

export class FenceRounds {
  private readonly rounds = new Map<number, Map<string, Record<string, string>>>();

  constructor(private readonly nodes: number) {
    if (!Number.isInteger(nodes) || nodes <= 0) throw new Error("a fence needs at least one node");
  }

  /** Node `node` entered round `round` with `puts`. */
  arrive(round: number, node: string, puts: Readonly<Record<string, string>>): FenceArrival {
    let seen = this.rounds.get(round);
    if (seen === undefined) {
      if (this.rounds.size >= ROUNDS_OPEN_MAX) return { error: "too many PMI fences open at once" };
      seen = new Map();
      this.rounds.set(round, seen);
    }
    if (seen.has(node)) return { error: `node ${node} entered PMI fence ${round} twice` };
    seen.set(node, { ...puts });
    if (seen.size < this.nodes) return { error: "" };
    this.rounds.delete(round);
    const all: Record<string, string> = {};
    for (const name of [...seen.keys()].sort()) Object.assign(all, seen.get(name));
    return { complete: all, error: "" };
  }
}
