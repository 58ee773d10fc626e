/**
 * @module compat/options/usage-selection
 * Which options `--usage` names: the short screen Slurm's sbatch/srun/salloc print names the
 * everyday options only (Slurm 22.05's selection, by option name: tests/fixtures/help), not
 * every option `--help` lists. The tokens themselves are generated from the option table
 * (compat/options/help.ts); this file only says which, and in what order: grouped by what a
 * user is deciding (the shape of the job, where it runs, when, what it does, GPUs, then the
 * command's own options).
 */
import type { Command } from "./table.ts";

/** Every option any --usage names, in the order shown. */
const ORDER: readonly string[] = [
  // shape
  "nodes", "ntasks", "cpus-per-task", "ntasks-per-node", "ntasks-per-socket", "ntasks-per-core", "threads",
  "relative", "distribution", "overcommit", "oversubscribe", "contiguous", "mincpus", "spread-job", "use-min-nodes",
  "mem", "mem-per-cpu", "tmp", "core-spec", "thread-spec",
  // where
  "partition", "nodelist", "exclude", "nodefile", "constraint", "reservation", "qos", "account", "licenses",
  "clusters", "network", "switches", "reboot", "delay-boot", "mcs-label", "gres", "gres-flags", "bb", "bbf",
  // when
  "time", "time-min", "dependency", "hold", "immediate", "nice", "requeue", "no-requeue", "no-kill",
  // what
  "job-name", "jobid", "chdir", "input", "output", "error", "array", "export", "export-file", "propagate",
  "comment", "mail-type", "mail-user", "profile", "cpu-freq", "cpu-bind", "mem-bind", "verbose",
  // GPUs
  "gpus", "gpus-per-node", "gpus-per-socket", "gpus-per-task", "cpus-per-gpu", "mem-per-gpu", "gpu-bind", "gpu-freq",
  // sbatch's own
  "parsable", "wait", "ignore-pbs", "gid", "uid",
  // srun's own
  "label", "unbuffered", "overlap", "exact", "kill-on-bad-exit", "mpi", "het-group", "multi-prog", "preserve-env",
  "prolog", "epilog", "task-prolog", "task-epilog", "bcast", "bcast-exclude", "send-libs", "compress", "acctg-freq",
  // salloc's own
  "bell", "no-bell", "kill-command",
];

const SLURM_SELECTION: Record<Command, readonly string[]> = {
  sbatch: [
    "nodes", "ntasks", "cpus-per-task", "partition", "hold", "parsable", "time", "chdir", "no-kill", "overcommit",
    "input", "output", "error", "time-min", "licenses", "clusters", "oversubscribe", "distribution", "job-name",
    "verbose", "gid", "uid", "contiguous", "mincpus", "mem", "tmp", "constraint", "account", "dependency", "comment",
    "mail-type", "mail-user", "nice", "wait", "requeue", "no-requeue", "ntasks-per-node", "propagate", "nodefile",
    "nodelist", "exclude", "network", "mem-per-cpu", "qos", "gres", "mem-bind", "reservation", "mcs-label",
    "cpu-freq", "gres-flags", "switches", "reboot", "core-spec", "thread-spec", "bb", "bbf", "array", "profile",
    "ignore-pbs", "spread-job", "export", "export-file", "delay-boot", "use-min-nodes", "cpus-per-gpu", "gpus",
    "gpu-bind", "gpu-freq", "gpus-per-node", "gpus-per-socket", "gpus-per-task", "mem-per-gpu",
  ],
  srun: [
    "nodes", "ntasks", "input", "output", "error", "cpus-per-task", "relative", "partition", "hold", "time", "chdir",
    "immediate", "overcommit", "overlap", "no-kill", "oversubscribe", "label", "unbuffered", "distribution",
    "job-name", "jobid", "verbose", "gres", "threads", "wait", "gres-flags", "licenses", "clusters", "qos",
    "time-min", "contiguous", "mincpus", "mem", "tmp", "constraint", "mpi", "account", "dependency",
    "kill-on-bad-exit", "propagate", "comment", "cpu-bind", "mem-bind", "network", "ntasks-per-node",
    "ntasks-per-socket", "reservation", "ntasks-per-core", "mem-per-cpu", "preserve-env", "profile", "exact",
    "mail-type", "mail-user", "nice", "prolog", "epilog", "task-prolog", "task-epilog", "multi-prog", "mcs-label",
    "cpu-freq", "spread-job", "switches", "reboot", "core-spec", "thread-spec", "bb", "bbf", "bcast",
    "bcast-exclude", "send-libs", "compress", "acctg-freq", "delay-boot", "nodelist", "exclude", "use-min-nodes",
    "het-group", "cpus-per-gpu", "gpus", "gpu-bind", "gpu-freq", "gpus-per-node", "gpus-per-socket",
    "gpus-per-task", "mem-per-gpu",
  ],
  salloc: [
    "nodes", "ntasks", "cpus-per-task", "partition", "hold", "time", "immediate", "no-kill", "overcommit", "chdir",
    "oversubscribe", "job-name", "verbose", "gid", "uid", "licenses", "clusters", "contiguous", "mincpus", "mem",
    "tmp", "constraint", "account", "dependency", "comment", "mail-type", "mail-user", "nice", "bell", "no-bell",
    "kill-command", "spread-job", "nodefile", "nodelist", "exclude", "network", "mem-per-cpu", "qos", "mem-bind",
    "reservation", "mcs-label", "time-min", "gres", "gres-flags", "cpu-freq", "profile", "switches", "core-spec",
    "thread-spec", "reboot", "bb", "bbf", "delay-boot", "use-min-nodes", "cpus-per-gpu", "gpus", "gpu-bind",
    "gpu-freq", "gpus-per-node", "gpus-per-socket", "gpus-per-task", "mem-per-gpu",
  ],
};

/** The option names `cmd --usage` shows, in display order (names the table lacks are dropped by the caller). */
export function usageNames(cmd: Command): string[] {
  const wanted = new Set(SLURM_SELECTION[cmd]);
  return ORDER.filter((n) => wanted.has(n));
}

/** Every selected name has a place in ORDER (checked by the unit test). */
export const unorderedNames = (cmd: Command): string[] => SLURM_SELECTION[cmd].filter((n) => !ORDER.includes(n));
