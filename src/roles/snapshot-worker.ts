/**
 * @module roles/snapshot-worker
 * `spur snapshot-worker INIT_FILE`: the replica's snapshot worker as a child process of spurctld
 * (SpurRaftSnapshotWorker=yes or process, the default; ctld/snapshotter.ts starts one per image).
 * It answers the request on its IPC channel (ctld/snapshot-work.ts); the replica ends it after
 * the answer, and it ends by itself when the channel closes or, before writing, when the replica
 * that started it is gone.
 */
import { deserialize } from "bun:jsc";
import { readFileSync } from "node:fs";
import { createSnapshotWork, type ToWorker } from "../ctld/snapshot-work.ts";

/** argv: the file holding the init message (the replica's configuration), serialized (bun:jsc). */
export async function main(argv: string[]): Promise<number> {
  const send = process.send?.bind(process);
  if (send === undefined || argv[0] === undefined) {
    process.stderr.write("spur snapshot-worker: started by spurctld only (no IPC channel)\n");
    return 1;
  }
  // The replica that started it, by pid: once it is gone (reparented), the image it asked for is of no use.
  const parent = process.ppid;
  const work = createSnapshotWork((m) => send(m), () => {
    if (process.ppid !== parent) process.exit(0);
  });
  work(deserialize(readFileSync(argv[0])) as ToWorker);
  process.on("message", (m) => work(m as ToWorker));
  return await new Promise<number>((resolve) => process.on("disconnect", () => resolve(0)));
}
