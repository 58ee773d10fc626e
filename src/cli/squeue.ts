/**
 * @module cli/squeue
 * `squeue`: its options first, then the listing (squeue-run.ts), loaded only once the options
 * ask for one: --version, --help, --usage and a refused option print without the formatter's
 * tables, columns and job selection (most of squeue's code, a few ms of every start on this VM).
 */
import { SLURM_VERSION_LINE } from "../compat/format/openapi-json.ts";
import { parseSqueueArgs } from "../compat/format/squeue-options.ts";
import { withTimeFormat } from "../compat/format-time.ts";
import type { CliPort, CliResult } from "../net/ctl-port.ts";
import { repeatEvery } from "./repeat.ts";

/** SLURM_TIME_FORMAT applies to every time this command prints (compat/format-time.ts). */
export const squeueMain = (argv: string[], port: CliPort): Promise<CliResult> =>
  withTimeFormat("squeue", port.env, port.now(), async () => {
    const parsed = parseSqueueArgs(argv, port.env, port.invoker.uid, SLURM_VERSION_LINE);
    if (!parsed.ok) return parsed.exit;
    const { squeueRun } = await import("./squeue-run.ts");
    const every = parsed.params.iterate;
    return every > 0 ? repeatEvery(port, every, () => squeueRun(argv, port)) : squeueRun(argv, port);
  });
