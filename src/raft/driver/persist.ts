/**
 * @module raft/driver/persist
 * Writing a Ready: entries, hard state and snapshot in one transaction (fsync when the Ready
 * says mustSync). Failure policy: a full disk keeps the replica up. The refused Ready is held
 * (its acks and votes unsent, nothing of it applied, so this replica counts toward no quorum
 * it did not persist) and tried again every PERSIST_RETRY_MS; meanwhile new proposals wait in
 * a bounded backlog, past which they are refused with ENOSPC's answer.
 */
import type { TimerHandle } from "../../lib/clock.ts";
import { isDiskFull } from "../../lib/store-full.ts";
import type { Ready } from "../core/index.ts";
import { PERSIST_RETRY_MS } from "./api.ts";
import type { DriverContext } from "./context.ts";

export interface Persister {
  /** Write `rd`; false when the disk refused it (then it is held, and retried). */
  persist(rd: Ready): boolean;
  /** Write the held Ready, if any: false while the disk still refuses it; the Ready written otherwise. */
  retryHeld(): false | Ready | undefined;
  /** May a proposal of `bytes` be taken now (always, unless a Ready is held and the backlog is at its bound). */
  admit(bytes: number): boolean;
  stop(): void;
}

export function createPersister(ctx: DriverContext): Persister {
  /** A Ready the disk refused (full): retried before any newer one is taken. */
  let held: Ready | undefined;
  let retryTimer: TimerHandle | undefined;
  /** Entries (and their bytes) in memory that the disk has not taken yet: counted from the first refused write. */
  const backlog = { entries: 0, bytes: 0 };

  function write(rd: Ready): boolean {
    const s = ctx.ports.storage;
    if (rd.snapshot === undefined && rd.entries.length === 0 && rd.hardState === undefined) return true;
    try {
      s.atomically(() => {
        if (rd.snapshot !== undefined) s.applySnapshot(rd.snapshot);
        s.append(rd.entries);
        if (rd.hardState !== undefined) s.setHardState(rd.hardState);
      }, rd.mustSync);
    } catch (error) {
      // atomically() rolled back the file and the store's view of it: nothing of rd is kept.
      if (!isDiskFull(error)) throw error;
      ctx.diskFull.failed(error);
      retryTimer ??= ctx.clock.setTimeout(() => {
        retryTimer = undefined;
        ctx.schedule();
      }, PERSIST_RETRY_MS);
      return false;
    }
    ctx.diskFull.succeeded();
    return true;
  }

  return {
    persist(rd) {
      if (write(rd)) return true;
      held = rd;
      backlog.entries = rd.entries.length;
      backlog.bytes = rd.entries.reduce((n, e) => n + e.data.length, 0);
      return false;
    },
    retryHeld() {
      if (held === undefined) return undefined;
      const rd = held;
      if (!write(rd)) return false;
      held = undefined;
      backlog.entries = 0;
      backlog.bytes = 0;
      return rd;
    },
    admit(bytes) {
      if (held === undefined) return true;
      if (backlog.entries + 1 > ctx.o.backlogEntriesMax || backlog.bytes + bytes > ctx.o.backlogBytesMax) return false;
      backlog.entries += 1;
      backlog.bytes += bytes;
      return true;
    },
    stop() {
      ctx.clock.clear(retryTimer);
      retryTimer = undefined;
    },
  };
}
