/**
 * @module ctld/group-commit
 * Single-controller durability: commands that arrive in one turn of the event loop
 * (concurrent submissions) are written together after it, one durable append (one fsync) for
 * all, then applied in log order, each caller answered after its own entry is on disk and
 * applied. Replicated mode hands the command to Raft instead. Failure policy: a full disk
 * stores nothing and applies nothing: every caller of the batch hears ENOSPC and may retry.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import type { ConsolaInstance } from "consola/core";
import { assert } from "../lib/assert.ts";
import type { Clock } from "../lib/clock.ts";
import { diskFullReporter, isDiskFull, NO_SPACE_MESSAGE } from "../lib/store-full.ts";
import type { ApplyResult } from "../sched/model/apply.ts";
import type { Command } from "../sched/model/commands.ts";
import type { ClusterState } from "../sched/model/types.ts";
import type { Replication } from "./controller-api.ts";
import type { LogStore } from "./log-store.ts";

export interface CommitDeps {
  state: ClusterState;
  log?: LogStore | undefined;
  replication?: Replication | undefined;
  clock: Clock;
  logger: Pick<ConsolaInstance, "warn" | "info">;
  /** Apply a command just made durable at log index `index`. */
  applyCommitted(command: Command, index: number): ApplyResult;
}

export interface Committer {
  /** Make `command` durable (log or consensus), apply it, answer its result. */
  execute(command: Command): Promise<ApplyResult>;
  /** Commands issued by the controller itself: nobody waits for them, failures are logged. */
  executeInternal(command: Command): void;
  readonly diskFull: ReturnType<typeof diskFullReporter>;
}

export function createCommitter(d: CommitDeps): Committer {
  const diskFull = diskFullReporter(d.logger, "command log");
  /** Commands waiting for the next group commit (single controller: one transaction, one fsync). */
  let pending: { command: Command; resolve: (r: ApplyResult) => void; reject: (e: unknown) => void }[] = [];

  function commitPending(): void {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    const log = d.log as LogStore;
    let first: number;
    try {
      first = log.appendMany(batch.map((b) => b.command));
      diskFull.succeeded();
    } catch (error) {
      const full = isDiskFull(error);
      if (full) diskFull.failed(error);
      for (const b of batch) b.reject(full ? new ConnectError(NO_SPACE_MESSAGE, Code.ResourceExhausted) : error);
      return;
    }
    batch.forEach((b, k) => {
      try {
        const result = d.applyCommitted(b.command, first + k);
        assert(d.state.appliedIndex === first + k, `applied index ${d.state.appliedIndex} follows log index ${first + k}`);
        b.resolve(result);
      } catch (error) {
        b.reject(error);
      }
    });
  }

  function execute(command: Command): Promise<ApplyResult> {
    if (d.replication !== undefined) return d.replication.propose(command);
    return new Promise((resolve, reject) => {
      pending.push({ command, resolve, reject });
      if (pending.length === 1) d.clock.setImmediate(commitPending);
    });
  }

  return {
    execute,
    executeInternal(command) {
      execute(command).catch((error) => {
        // A full disk is logged once where it is found (the log store, or the Raft driver), not per command.
        const noSpace = error instanceof ConnectError && error.code === Code.ResourceExhausted;
        if (!diskFull.isFull() && !noSpace) d.logger.warn({ message: "command not committed", type: command.type, error: String(error) });
      });
    },
    diskFull,
  };
}
