/**
 * @module roles/admin/import-slurm
 * `spur import-slurm DIR|slurm.conf [-o FILE] [--force]`: slurm.conf (with gres.conf,
 * topology.conf and cgroup.conf beside it) as spur.conf (ops/import-slurm-cli.ts).
 */
import type { ParsedArgs } from "citty";
import type { ImportSlurmFlags } from "../../ops/import-slurm-cli.ts";
import { defineAdminCommand, writeOps } from "./command.ts";

export const importSlurmArgs = {
  target: { type: "positional", required: false, valueHint: "DIR|slurm.conf", description: "slurm.conf, or the directory that holds it" },
  output: { type: "string", alias: "o", valueHint: "FILE", description: "write spur.conf here (else to stdout; the report goes to stderr)" },
  force: { type: "boolean", description: "replace an existing --output file" },
} as const;

export const importSlurmFlagsOf = (a: ParsedArgs<typeof importSlurmArgs>): ImportSlurmFlags => ({ target: a.target, output: a.output, force: a.force });

export default defineAdminCommand({
  meta: { name: "spur import-slurm", description: "convert slurm.conf/gres.conf/topology.conf to spur.conf" },
  args: importSlurmArgs,
  run: async ({ args }) => writeOps((await import("../../ops/import-slurm-cli.ts")).importSlurmMain(importSlurmFlagsOf(args))),
});
