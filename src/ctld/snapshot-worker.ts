/**
 * @module ctld/snapshot-worker
 * The snapshot worker as a Worker thread of the replica (SpurRaftSnapshotWorker=thread): the
 * work itself is ctld/snapshot-work.ts, the replica's side ctld/snapshotter.ts.
 */
import { createSnapshotWork, type ToWorker } from "./snapshot-work.ts";

// The executable starts with the user commands' JIT policy (scripts/build-binary.ts); this thread
// folds and encodes whole states, so it compiles as a daemon does (main.ts DAEMON_ROLES).
Bun.unsafe.setJITPolicy(1);

declare const self: Worker;

const work = createSnapshotWork((m) => postMessage(m));
self.onmessage = (event: MessageEvent<ToWorker>) => {
  work(event.data);
  // A thread lives on after an image: the state it just built is garbage now, collected before it
  // is counted against the replica for long. (The process mode's child is ended after its answer.)
  if (event.data.t === "snapshot") Bun.gc(true);
};
