/**
 * @module cli/repeat
 * squeue/sinfo -i/--iterate: the listing again every N seconds, each followed by a blank line
 * (oracle 22.05), until the command is killed. A round that fails (the controller away) says so
 * and the next round tries again, as Slurm's commands do in this mode.
 */
import type { CliPort, CliResult } from "../net/ctl-port.ts";

/** Write `once()`'s output every `seconds`; returns only if the port's sleep fails (a test's way out). */
export async function repeatEvery(port: CliPort, seconds: number, once: () => Promise<CliResult>): Promise<CliResult> {
  for (;;) {
    const r = await once();
    port.write("stdout", `${r.stdout}${[...(r.stdoutMore ?? [])].join("")}\n`);
    if (r.stderr !== "") port.write("stderr", r.stderr);
    await port.sleep(seconds * 1000);
  }
}
