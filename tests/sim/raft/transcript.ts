/**
 * @module sim/raft/transcript
 * Transcript tests in etcd's datadriven style: testdata/*.txt hold commands, each followed
 * by `----` and the expected output (messages delivered, states). Commands: add-nodes N,
 * campaign ID, tick ID|all [xN], stabilize, settle N, status, partition 1,2|3, heal, propose
 * ID DATA, read ID CTX, read-states ID, applied ID, transfer FROM TO, add-learner LEADER ID,
 * promote LEADER ID, remove LEADER ID, crash ID, restart ID. The runner replays a file
 * on the deterministic unit-test cluster and returns the file as it should read, so a test
 * compares it and `UPDATE_TRANSCRIPTS=1` rewrites it for a human to review as a diff.
 */
import type { Message } from "../../../src/raft/core/types.ts";
import { TestCluster } from "../../unit/raft/harness.ts";

interface Block {
  command: string;
  expected: string;
}

/** Split a file into command blocks: `cmd\n----\noutput\n` separated by blank lines. */
export function parseTranscript(textIn: string): { header: string; blocks: Block[] } {
  const lines = textIn.split("\n");
  const blocks: Block[] = [];
  const header: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (line.trim() === "" || line.startsWith("#")) {
      if (blocks.length === 0) header.push(line);
      i++;
      continue;
    }
    const command = line;
    if (lines[i + 1] !== "----") throw new Error(`line ${i + 2}: expected ---- after "${command}"`);
    i += 2;
    const out: string[] = [];
    while (i < lines.length && (lines[i] as string) !== "") out.push(lines[i++] as string);
    blocks.push({ command, expected: out.join("\n") });
  }
  return { header: header.join("\n").trimEnd(), blocks };
}

const describeMessage = (m: Message): string => {
  const parts = [`${m.from}->${m.to} ${m.type} term=${m.term}`];
  if (m.type === "app" || m.type === "vote" || m.type === "pre-vote") parts.push(`index=${m.index} logTerm=${m.logTerm}`);
  if (m.type === "app-resp") parts.push(`index=${m.index}`);
  if (m.entries.length > 0) parts.push(`entries=${m.entries.map((e) => `${e.index}@${e.term}`).join(",")}`);
  if (m.type === "app" || m.type === "heartbeat") parts.push(`commit=${m.commit}`);
  if (m.reject) parts.push(`reject hint=${m.rejectHint}@${m.logTerm}`);
  if (m.context !== "") parts.push(`ctx=${m.context}`);
  if (m.chunk !== undefined) parts.push(`chunk=${m.chunk.offset}/${m.chunk.totalBytes}`);
  return parts.join(" ");
};

/** The interpreter's state: one cluster and the partition in force. */
class Session {
  cluster: TestCluster | undefined;
  private out: string[] = [];

  run(command: string): string {
    this.out = [];
    const [verb, ...args] = command.trim().split(/\s+/);
    const handler = this.handlers[verb ?? ""];
    if (handler === undefined) throw new Error(`unknown command: ${command}`);
    handler(args);
    return this.out.length === 0 ? "ok" : this.out.join("\n");
  }

  private c(): TestCluster {
    if (this.cluster === undefined) throw new Error("add-nodes first");
    return this.cluster;
  }

  private ids = (spec: string): number[] => (spec === "all" ? [...this.c().peers.keys()] : spec.split(",").map(Number));

  private statusLines(): void {
    for (const [id, p] of this.c().peers) {
      if (this.c().down.has(id)) {
        this.out.push(`${id}: down`);
        continue;
      }
      const s = p.node.status();
      this.out.push(`${id}: ${s.state} term=${s.term} lead=${s.lead} commit=${s.commit} applied=${s.applied} last=${s.lastIndex} voters=${s.confState.voters.join(",")}${s.confState.learners.length > 0 ? ` learners=${s.confState.learners.join(",")}` : ""}`);
    }
  }

  private result(what: string, r: { ok: boolean; error?: { code: string } }): void {
    if (!r.ok) this.out.push(`${what}: ${r.error?.code}`);
  }

  private readonly handlers: Record<string, (args: string[]) => void> = {
    "add-nodes": ([n]) => {
      const ids = Array.from({ length: Number(n) }, (_, i) => i + 1);
      this.cluster = new TestCluster(ids);
      this.cluster.onDeliver = (m) => this.out.push(describeMessage(m));
    },
    campaign: ([id]) => this.c().tick(Number(id), this.c().config.electionTicks ?? 1),
    tick: ([spec, times]) => {
      const n = times === undefined ? 1 : Number(times.replace(/^x/, ""));
      for (let i = 0; i < n; i++) for (const id of this.ids(spec ?? "all")) this.c().tick(id);
    },
    stabilize: () => this.c().stabilize(),
    // N rounds of: every node ticks, then the cluster stabilizes; messages are not printed.
    settle: ([times]) => {
      const c = this.c();
      const print = c.onDeliver;
      c.onDeliver = () => {};
      c.tickAll(Number(times ?? 1));
      c.onDeliver = print;
    },
    status: () => this.statusLines(),
    partition: ([spec]) => {
      const groups = (spec ?? "").split("|").map((g) => new Set(g.split(",").map(Number)));
      const side = (id: number): number => groups.findIndex((g) => g.has(id));
      this.c().allow = (m) => side(m.from) === side(m.to);
    },
    heal: () => this.c().heal(),
    propose: ([id, data]) => this.result("propose", this.c().node(Number(id)).propose(data ?? "")),
    read: ([id, ctx]) => this.result("read", this.c().node(Number(id)).readIndex(ctx ?? "")),
    "read-states": ([id]) => {
      for (const rs of this.c().peer(Number(id)).readStates) this.out.push(`${rs.context} at ${rs.index}`);
    },
    applied: ([id]) => this.out.push(this.c().appliedTexts(Number(id)).join(" ") || "(none)"),
    transfer: ([from, to]) => this.result("transfer", this.c().node(Number(from)).transferLeader(Number(to))),
    "add-learner": ([leader, id]) => {
      this.c().add(Number(id));
      this.result("add-learner", this.c().node(Number(leader)).proposeConfChange({ type: "add-learner", nodeId: Number(id) }));
    },
    promote: ([leader, id]) => this.result("promote", this.c().node(Number(leader)).proposeConfChange({ type: "add-node", nodeId: Number(id) })),
    remove: ([leader, id]) => this.result("remove", this.c().node(Number(leader)).proposeConfChange({ type: "remove-node", nodeId: Number(id) })),
    crash: ([id]) => this.c().down.add(Number(id)),
    restart: ([id]) => this.c().restart(Number(id)),
  };
}

/** Replay a transcript; returns the file text with every output as the code produces it. */
export function runTranscript(textIn: string): string {
  const { header, blocks } = parseTranscript(textIn);
  const session = new Session();
  const rendered = blocks.map((b) => `${b.command}\n----\n${session.run(b.command)}\n`);
  return `${header === "" ? "" : `${header}\n\n`}${rendered.join("\n")}`;
}
