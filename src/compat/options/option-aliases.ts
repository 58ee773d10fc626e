/**
 * @module compat/options/option-aliases
 * Spellings that getopt treats as the same option (same `val` in Slurm's table), shared by
 * the build-time table derivation (table-built.ts) and table.ts's canonicalName.
 */
export const KEY_ALIASES: Record<string, string> = {
  "tasks-per-node": "ntasks-per-node",
  cpu_bind: "cpu-bind",
  "pack-group": "het-group",
};
