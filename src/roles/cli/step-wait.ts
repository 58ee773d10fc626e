/**
 * @module roles/cli/step-wait
 * srun's step creation with Slurm's wait: a step refused because other steps of the job
 * hold its CPUs ("Requested nodes are busy", Connect code resource_exhausted) is asked for
 * again every STEP_RETRY_MS until it is created, `--immediate` is given, or srun is
 * interrupted; the lines printed are compat/srun-step-wait.ts's.
 */
import { RpcError } from "../../net/ctl-port.ts";
import { STEP_RETRY_MS, STEP_WAIT_PERIOD_MS, waitEndedLines, type StepWaitView } from "../../compat/srun-step-wait.ts";

/** The controller's code for a step that may be created later. */
export const BUSY_CODE = "resource_exhausted";

/** Thrown when the wait is cancelled (the caller prints cancelledWaitLines). */
export class StepWaitCancelled extends Error {}

export interface StepWaitOptions extends StepWaitView {
  immediate: boolean;
  /** Aborted (Ctrl-C): the wait ends with StepWaitCancelled. */
  cancel: AbortSignal;
  write(text: string): void;
  retryMs?: number;
}

export async function createStepWaiting<T>(create: () => Promise<T>, o: StepWaitOptions): Promise<T> {
  const retryMs = o.retryMs ?? STEP_RETRY_MS;
  const print = (lines: string[]): void => {
    if (lines.length > 0) o.write(lines.map((l) => `${l}\n`).join(""));
  };
  let waitIndex = 0;
  let waitStart = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      const created = await create();
      if (attempt > 0) print(waitEndedLines(o, waitIndex, true));
      return created;
    } catch (error) {
      if (!(error instanceof RpcError) || error.code !== BUSY_CODE || o.immediate) throw error;
    }
    if (Date.now() - waitStart >= STEP_WAIT_PERIOD_MS) {
      print(waitEndedLines(o, waitIndex, false));
      waitIndex++;
      waitStart = Date.now();
    }
    await sleepUnlessCancelled(retryMs, o.cancel);
  }
}

function sleepUnlessCancelled(ms: number, cancel: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (cancel.aborted) return reject(new StepWaitCancelled());
    const done = (): void => {
      clearTimeout(timer);
      reject(new StepWaitCancelled());
    };
    const timer = setTimeout(() => {
      cancel.removeEventListener("abort", done);
      resolve();
    }, ms);
    cancel.addEventListener("abort", done, { once: true });
  });
}
