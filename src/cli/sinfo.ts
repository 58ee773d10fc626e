/**
 * @module cli/sinfo
 * `sinfo`: its options first, then the listing (sinfo-run.ts), loaded only once the options ask
 * for one: --version, --help, --usage and a refused option print without the columns, grouping
 * and sorting tables (most of sinfo's code, a few ms of every start on this VM).
 */
import { SLURM_VERSION_LINE } from "../compat/format/openapi-json.ts";
import { parseSinfoArgs } from "../compat/format/sinfo-options.ts";
import { withTimeFormat } from "../compat/format-time.ts";
import type { CliPort, CliResult } from "../net/ctl-port.ts";
import { repeatEvery } from "./repeat.ts";

/** `sinfo [options]`. SLURM_TIME_FORMAT applies to every time this command prints (compat/format-time.ts). */
export const sinfoMain = (argv: string[], port: CliPort): Promise<CliResult> =>
  withTimeFormat("sinfo", port.env, port.now(), async () => {
    const parsed = parseSinfoArgs(argv, port.env, SLURM_VERSION_LINE);
    if (!parsed.ok) return parsed.exit;
    const { sinfoRun } = await import("./sinfo-run.ts");
    const every = parsed.params.iterate;
    return every > 0 ? repeatEvery(port, every, () => sinfoRun(argv, port)) : sinfoRun(argv, port);
  });
