/**
 * @module compat/pmi/pmi-node
 * The PMI server of one step on one node (`srun --mpi=pmi2`), as a pure state machine: it takes
 * the messages of the local tasks (each known by its rank, the PMI_RANK its socket was given) and
 * returns what to do: replies to write, a fence to run across the nodes, an abort. The shell
 * (agent/pmi-serve.ts) owns the sockets and srun's fence call.
 *
 * Both wire versions are served, as Slurm's mpi/pmi2 plugin does: PMI-1 (MPICH's default client:
 * init, get_maxes, get_appnum, get_my_kvsname, get_universe_size, put, get, barrier_in, finalize,
 * abort) and PMI-2 (fullinit, job-getid, info-getjobattr, info-putnodeattr, info-getnodeattr,
 * kvs-put, kvs-get, kvs-fence, finalize, abort). Replies carry Slurm's attributes in Slurm's order
 * (facts from the 22.05 oracle, tests/unit/compat/pmi-node.test.ts). A fence (PMI-1 barrier or
 * PMI-2 kvs-fence, the same thing) completes once every local task has entered it and srun has
 * gathered the puts of every node for that round.
 */
import { formatV1, formatV2, type PmiMessage, type PmiWire } from "./wire.ts";

export interface PmiStepInfo {
  /** The KVS name and PMI-2 job id: "JOBID.STEPID" (PMI_JOBID). */
  kvsName: string;
  /** Tasks of the step (PMI_SIZE, universe size). */
  size: number;
  /** The ranks that run on this node. */
  localRanks: readonly number[];
  /** PMI_process_mapping (compat/pmi/mapping.ts). */
  mapping: string;
}

export type PmiEffect =
  | { kind: "reply"; rank: number; text: string }
  | { kind: "fence"; round: number; puts: Record<string, string> }
  | { kind: "abort"; rank: number; exitCode: number; message: string };

type Attrs = ReadonlyArray<readonly [string, string | number]>;

/**
 * What the tasks of a step may put on one node, keys and values together: beyond it a put is
 * refused (rc=-1) instead of growing the agent's memory (MPI business cards are a few hundred
 * bytes per rank).
 */
export const PMI_KVS_BYTES_MAX = 16 * 1024 * 1024;

/** Slurm's limits in the PMI-1 get_maxes answer. */
const MAXES: Attrs = [["kvsname_max", 256], ["keylen_max", 64], ["vallen_max", 1024]];

export class PmiNode {
  private readonly wires = new Map<number, PmiWire>();
  private readonly kvs = new Map<string, string>();
  private pending: Record<string, string> = {};
  private readonly nodeAttrs = new Map<string, string>();
  private readonly attrWaiters: Array<{ rank: number; key: string }> = [];
  private readonly inFence = new Set<number>();
  private round = 0;
  private fencing = false;
  private putBytes = 0;

  constructor(private readonly info: PmiStepInfo) {
    if (info.size <= 0 || info.localRanks.length === 0) throw new Error("a PMI step needs tasks on this node");
  }

  /** The wire a rank's connection speaks now (1 until its init asked for 2). */
  wireOf(rank: number): PmiWire {
    return this.wires.get(rank) ?? 1;
  }

  /** One message from `rank`'s connection. */
  receive(rank: number, msg: PmiMessage): PmiEffect[] {
    if (msg.cmd === "init") return this.init(rank, msg);
    return this.wireOf(rank) === 2 ? this.receiveV2(rank, msg) : this.receiveV1(rank, msg);
  }

  /** srun answered fence `round` with every node's puts: store them, release the local tasks. */
  fenceDone(round: number, all: Readonly<Record<string, string>>): PmiEffect[] {
    if (!this.fencing || round !== this.round - 1) return [];
    for (const [k, v] of Object.entries(all)) this.kvs.set(k, v);
    return this.releaseFence(0);
  }

  /** The fence could not complete (srun unreachable): the tasks get an error code. */
  fenceFailed(round: number): PmiEffect[] {
    if (!this.fencing || round !== this.round - 1) return [];
    return this.releaseFence(-1);
  }

  private releaseFence(rc: number): PmiEffect[] {
    this.fencing = false;
    const ranks = [...this.inFence].sort((a, b) => a - b);
    this.inFence.clear();
    return ranks.map((rank) =>
      this.wireOf(rank) === 2 ? this.reply(rank, "kvs-fence-response", [["rc", rc]]) : this.reply(rank, "barrier_out", [["rc", rc]]));
  }

  private reply(rank: number, cmd: string, attrs: Attrs): PmiEffect {
    return { kind: "reply", rank, text: this.wireOf(rank) === 2 ? formatV2(cmd, attrs) : formatV1(cmd, attrs) };
  }

  private init(rank: number, msg: PmiMessage): PmiEffect[] {
    const version = Number(msg.attrs.get("pmi_version") ?? 1);
    const sub = Number(msg.attrs.get("pmi_subversion") ?? 1);
    // the init answer is always a PMI-1 line; the connection speaks PMI-2 after it when asked
    const text = version === 2
      ? formatV1("response_to_init", [["rc", 0], ["pmi_version", 2], ["pmi_subversion", 0]])
      : version === 1
        ? formatV1("response_to_init", [["rc", 0], ["pmi_version", 1], ["pmi_subversion", Math.min(sub, 1)]])
        : formatV1("response_to_init", [["rc", -1], ["pmi_version", 2], ["pmi_subversion", 0]]);
    if (version === 2) this.wires.set(rank, 2);
    return [{ kind: "reply", rank, text }];
  }

  /** A job attribute PMI clients ask for by name. */
  private jobAttr(key: string): string | undefined {
    if (key === "PMI_process_mapping") return this.info.mapping;
    if (key === "universeSize") return String(this.info.size);
    return undefined;
  }

  /** Store a put; false when it would pass PMI_KVS_BYTES_MAX. */
  private put(key: string, value: string): boolean {
    const bytes = key.length + value.length;
    if (this.putBytes + bytes > PMI_KVS_BYTES_MAX) return false;
    this.putBytes += bytes;
    this.kvs.set(key, value);
    this.pending[key] = value;
    return true;
  }

  private enterFence(rank: number): PmiEffect[] {
    this.inFence.add(rank);
    if (this.fencing || this.inFence.size < this.info.localRanks.length) return [];
    this.fencing = true;
    const puts = this.pending;
    this.pending = {};
    const round = this.round;
    this.round += 1;
    return [{ kind: "fence", round, puts }];
  }

  private receiveV1(rank: number, msg: PmiMessage): PmiEffect[] {
    const a = msg.attrs;
    const r = (cmd: string, attrs: Attrs = []) => [this.reply(rank, cmd, [["rc", 0], ...attrs])];
    switch (msg.cmd) {
      case "get_maxes":
        return r("maxes", MAXES);
      case "get_appnum":
        return r("appnum", [["appnum", -1]]);
      case "get_my_kvsname":
        return r("my_kvsname", [["kvsname", this.info.kvsName]]);
      case "get_universe_size":
        return r("universe_size", [["size", this.info.size]]);
      case "put":
        return this.put(a.get("key") ?? "", a.get("value") ?? "") ? r("put_result") : [this.reply(rank, "put_result", [["rc", -1]])];
      case "get": {
        const key = a.get("key") ?? "";
        const value = this.kvs.get(key) ?? this.jobAttr(key);
        return value === undefined ? [this.reply(rank, "get_result", [["rc", 1]])] : r("get_result", [["value", value]]);
      }
      case "barrier_in":
        return this.enterFence(rank);
      case "finalize":
        return r("finalize_ack");
      case "abort":
        return [{ kind: "abort", rank, exitCode: Number(a.get("exitcode") ?? 1) || 1, message: "" }];
      default:
        return [this.reply(rank, `${msg.cmd}_result`, [["rc", -1]])];
    }
  }

  private receiveV2(rank: number, msg: PmiMessage): PmiEffect[] {
    const a = msg.attrs;
    const r = (cmd: string, attrs: Attrs = []) => [this.reply(rank, cmd, [["rc", 0], ...attrs])];
    const found = (cmd: string, value: string | undefined) =>
      value === undefined ? r(cmd, [["found", "FALSE"]]) : r(cmd, [["found", "TRUE"], ["value", value]]);
    switch (msg.cmd) {
      case "fullinit": {
        const me = Number(a.get("pmirank") ?? rank);
        return r("fullinit-response", [
          ["pmi-version", 2], ["pmi-subversion", 0], ["rank", Number.isInteger(me) ? me : rank], ["size", this.info.size],
          ["appnum", -1], ["debugged", "FALSE"], ["pmiverbose", "FALSE"],
        ]);
      }
      case "job-getid":
        return r("job-getid-response", [["jobid", this.info.kvsName]]);
      case "info-getjobattr":
        return found("info-getjobattr-response", this.jobAttr(a.get("key") ?? ""));
      case "info-putnodeattr":
        return this.putNodeAttr(rank, a.get("key") ?? "", a.get("value") ?? "");
      case "info-getnodeattr": {
        const key = a.get("key") ?? "";
        const value = this.nodeAttrs.get(key);
        if (value === undefined && a.get("wait") === "TRUE") {
          this.attrWaiters.push({ rank, key });
          return [];
        }
        return found("info-getnodeattr-response", value);
      }
      case "kvs-put":
        return this.put(a.get("key") ?? "", a.get("value") ?? "") ? r("kvs-put-response") : [this.reply(rank, "kvs-put-response", [["rc", -1]])];
      case "kvs-get":
        return found("kvs-get-response", this.kvs.get(a.get("key") ?? ""));
      case "kvs-fence":
        return this.enterFence(rank);
      case "finalize":
        return r("finalize-response");
      case "abort":
        return [{ kind: "abort", rank, exitCode: 1, message: a.get("msg") ?? "" }];
      default:
        return [this.reply(rank, `${msg.cmd}-response`, [["rc", -1]])];
    }
  }

  private putNodeAttr(rank: number, key: string, value: string): PmiEffect[] {
    this.nodeAttrs.set(key, value);
    const out: PmiEffect[] = [this.reply(rank, "info-putnodeattr-response", [["rc", 0]])];
    for (let i = this.attrWaiters.length - 1; i >= 0; i--) {
      const w = this.attrWaiters[i];
      if (w === undefined || w.key !== key) continue;
      this.attrWaiters.splice(i, 1);
      out.push(this.reply(w.rank, "info-getnodeattr-response", [["rc", 0], ["found", "TRUE"], ["value", value]]));
    }
    return out;
  }
}
