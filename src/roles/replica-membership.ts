/**
 * @module roles/replica-membership
 * A replica's view of who the controllers are, kept where clients and agents look:
 *  - after every membership change it applies (and at start) a replica rewrites the file
 *    beside spur.conf (conf-file.membershipFile: `SpurControllers=` plus `# index N`), so
 *    CLIs and spurd on that host find controllers added at run time; a file written from a
 *    newer index is never replaced by an older view (replicas sharing a host);
 *  - a replica starting with an empty state directory and without --join first asks the
 *    running cluster (if any) whether it is a member: if a leader answers and its
 *    membership lacks this replica, it refuses to start instead of writing a second
 *    cluster's initial log.
 * Failure policy: a membership file that cannot be written is logged once, never fatal.
 */
import { renameSync, writeFileSync } from "node:fs";
import { type ControllerPeer, membershipFile, readMembershipFile } from "./conf-file.ts";

export const peerEntry = (p: ControllerPeer): string => `${p.id}@${p.host.includes(":") ? `[${p.host}]` : p.host}:${p.port}:${p.raftPort}`;

/**
 * Returns write(members, index, lastIndex?): rewrite the membership file when it changed.
 * A file from a newer index is kept, unless that index is beyond `lastIndex` (this
 * replica's log end at start): then it is left over from an earlier cluster and replaced.
 */
export function membershipWriter(
  confFile: string,
  logger: { warn(o: object): void; info(o: object): void },
): (members: ControllerPeer[], index: number, lastIndex?: number) => void {
  let warned = false;
  let last = "";
  return (members, index, lastIndex = Number.POSITIVE_INFINITY) => {
    if (members.length === 0) return;
    const line = members.map(peerEntry).join(",");
    if (line === last) return;
    const path = membershipFile(confFile);
    try {
      const onDisk = readMembershipFile(confFile);
      if (onDisk.index > index && onDisk.index <= lastIndex) return;
      if (onDisk.peers.map(peerEntry).join(",") !== line || onDisk.index !== index) {
        const tmp = `${path}.${process.pid}.tmp`;
        writeFileSync(tmp, `# Controllers as of Raft index ${index}, written by spurctld after membership changes.\n# Clients and node agents read this instead of spur.conf's SpurControllers=.\n# index ${index}\nSpurControllers=${line}\n`, { mode: 0o644 });
        renameSync(tmp, path);
        logger.info({ message: "membership file written", path, controllers: line, index });
      }
      last = line;
    } catch (error) {
      if (!warned) logger.warn({ message: "cannot write the membership file (clients keep using spur.conf's SpurControllers=)", path, error: String(error) });
      warned = true;
    }
  };
}

interface RaftPing {
  id?: number;
  role?: string;
  leaderUrl?: string;
  peers?: { id?: number }[];
}

async function pingRaft(url: string, timeoutMs: number): Promise<RaftPing | undefined> {
  try {
    const res = await fetch(`${url}/spur.v1.Controller/Ping`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}", signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return undefined;
    return ((await res.json()) as { raft?: RaftPing }).raft;
  } catch {
    return undefined;
  }
}

/**
 * For a replica with no log started without --join: the refusal to print when a running
 * cluster's leader does not count `selfId` among its members; undefined to go on (it is a
 * member, or no leader answered within waitMs: a cluster starting for the first time).
 */
export async function strangerRefusal(selfId: number, urls: string[], waitMs = 3000): Promise<string | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const answers = await Promise.all(urls.map((u) => pingRaft(u, 1000)));
    let leader = answers.find((a) => a?.role === "leader");
    const hinted = answers.find((a) => a?.leaderUrl)?.leaderUrl;
    if (leader === undefined && hinted !== undefined) {
      const a = await pingRaft(hinted, 1000);
      if (a?.role === "leader") leader = a;
    }
    if (leader !== undefined) {
      const members = (leader.peers ?? []).map((p) => p.id ?? 0).filter((id) => id > 0);
      if (members.includes(selfId)) return undefined;
      return (
        `spurctld: fatal: a cluster is already running (leader ${leader.id}, members ${members.join(",")}) and controller ${selfId} is not one of its members; ` +
        `starting it would begin a second cluster. Start it with --join, then run \`spur controller add ${selfId} HOST:PORT:RAFTPORT\` on any controller host.`
      );
    }
    if (answers.every((a) => a === undefined) || Date.now() >= deadline) return undefined;
    await new Promise((r) => setTimeout(r, 200));
  }
}
