/**
 * @module tests/conformance/scenario
 * Scenarios are data, written once and run on both sides: a group is a list of
 * steps; a `do` step prepares state (its trimmed stdout can be saved as a
 * variable for later commands), a `cap` step is one compared scenario. Both are
 * bash command lines run in the side's job directory, as capture.sh runs them.
 */
import type { Compare } from "./normalise.ts";

export interface DoStep {
  kind: "do";
  cmd: string;
  /** Save trimmed stdout under this name; later commands see it as $NAME. */
  as?: string;
  timeoutS?: number;
}

export interface CapStep {
  kind: "cap";
  id: string;
  cmd: string;
  /** What the cluster holds when the command runs (for the report). */
  setup?: string;
  compare?: Compare;
  stdin?: string;
  timeoutS?: number;
  /**
   * A bash test run on each side first; if it fails on either, the scenario is
   * skipped (its state cannot be reproduced here, e.g. it needs a fresh oracle).
   */
  pre?: string;
  /** Why `pre` exists, shown when the scenario is skipped. */
  preWhy?: string;
  /** Save trimmed stdout under this name, as a `do` step's `as`. */
  as?: string;
  /** Saved variables holding job ids (space-separated) that appear in output file names. */
  ids?: string[];
}

export type Step = DoStep | CapStep;

export interface Group {
  name: string;
  steps: Step[];
}

/** A preparation step. */
export const run = (cmd: string, as?: string, timeoutS?: number): DoStep => ({
  kind: "do",
  cmd,
  ...(as !== undefined ? { as } : {}),
  ...(timeoutS !== undefined ? { timeoutS } : {}),
});

/** A compared scenario. */
export const cap = (id: string, cmd: string, more: Partial<Omit<CapStep, "kind" | "id" | "cmd">> = {}): CapStep => ({
  kind: "cap",
  id,
  cmd,
  ...more,
});

/** The environment filter capture.sh uses for job environments. */
export const GREP_ENV = "env | grep -E '^(SLURM|CUDA|ROCR|HIP|GPU|ZE_)' | sort";

export const capIds = (g: Group): string[] => g.steps.filter((s): s is CapStep => s.kind === "cap").map((s) => s.id);
