/**
 * @module agent/pmix/protocol
 * The lines spurd and a step's PMIx server process (`spur pmix-server`, roles/pmix-server.ts)
 * exchange, one JSON object per line: spurd writes the step on the server's stdin, the server
 * answers with every local task's environment (or why it cannot serve), then asks spurd to carry
 * each fence across the nodes and reports aborts; spurd answers each fence. Binary fence data
 * travels as base64. The server ends when its stdin ends.
 */
import type { PmixStep } from "../../compat/pmix/job-info.ts";

/** spurd → server, first line. */
export interface ServerStart {
  step: Omit<PmixStep, "tmpDir">;
  uid: number;
  gid: number;
}

/** spurd → server, later lines: a fence's result (`blobs`: every node's data, base64; ok false: failed). */
export interface FenceAnswer {
  fence: number;
  ok: boolean;
  blobs: string[];
}

/** server → spurd. */
export type ServerLine =
  | { ready: Record<string, Record<string, string>> }
  | { failed: string }
  | { fence: number; data: string; nprocs: number }
  | { abort: number; status: number; message: string }
  | { finalized: number };

/** Lines larger than this are refused (a fence answer holds every node's modex data). */
export const LINE_BYTES_MAX = 32 * 1024 * 1024;

/** Split `buffer + chunk` into whole lines and the rest. */
export function splitLines(buffer: string, chunk: string): { lines: string[]; rest: string } {
  const all = buffer + chunk;
  const parts = all.split("\n");
  const rest = parts.pop() ?? "";
  if (rest.length > LINE_BYTES_MAX) throw new Error("PMIx server line too long");
  return { lines: parts.filter((l) => l !== ""), rest };
}
