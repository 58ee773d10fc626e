/**
 * @module compat/srun-task-report
 * The lines srun prints on stderr when tasks end badly: per node, the tasks that
 * ended the same way, as `srun: error: <node>: task 0: Exited with exit code 1`
 * (`tasks 0-2,4` for several) or, for a task killed by a signal, the signal's
 * description (`srun: error: n1: task 0: Killed`). Tasks that exit 0 are not
 * reported. Goldens 027; conformance x-err-srun-exit-code-7, x-err-srun-signal-exit.
 */

/** How one task ended. */
export interface TaskEnd {
  taskId: number;
  exitCode: number;
  /** Signal number that killed it, 0 if it exited. */
  exitSignal: number;
}

/** The C library's descriptions of the signals a task usually dies from (strsignal). */
const SIGNAL_TEXT: Record<number, string> = {
  1: "Hangup", 2: "Interrupt", 3: "Quit", 4: "Illegal instruction", 5: "Trace/breakpoint trap",
  6: "Aborted", 7: "Bus error", 8: "Floating point exception", 9: "Killed", 10: "User defined signal 1",
  11: "Segmentation fault", 12: "User defined signal 2", 13: "Broken pipe", 14: "Alarm clock", 15: "Terminated",
  24: "CPU time limit exceeded", 25: "File size limit exceeded",
};

export const signalText = (sig: number): string => SIGNAL_TEXT[sig] ?? `Unknown signal ${sig}`;

/** Task ids as a range list: 0-2,4. */
export function taskRanges(ids: readonly number[]): string {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && (sorted[j + 1] as number) === (sorted[j] as number) + 1) j++;
    out.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return out.join(",");
}

/** stderr lines (each ending in a newline) for the tasks of one node, in first-seen order of their outcome. */
export function taskEndLines(node: string, ends: readonly TaskEnd[]): string {
  const groups = new Map<string, { text: string; ids: number[] }>();
  for (const e of ends) {
    if (e.exitSignal === 0 && e.exitCode === 0) continue;
    const text = e.exitSignal !== 0 ? signalText(e.exitSignal) : `Exited with exit code ${e.exitCode}`;
    const g = groups.get(text) ?? { text, ids: [] };
    g.ids.push(e.taskId);
    groups.set(text, g);
  }
  return [...groups.values()]
    .map((g) => `srun: error: ${node}: ${g.ids.length === 1 ? "task" : "tasks"} ${taskRanges(g.ids)}: ${g.text}\n`)
    .join("");
}
