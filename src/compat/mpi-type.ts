/**
 * @module compat/mpi-type
 * srun's `--mpi=TYPE` (also SLURM_MPI_TYPE, and MpiDefault= in the configuration): which MPI
 * plugin starts the step's tasks. Spur has `none` (nothing: mpirun's own daemons, or a program
 * that is not MPI) and `pmi2` (the PMI-1/PMI-2 wire protocol served on each node, agent/pmi-serve.ts).
 * `pmix` is not there: it is answered as a Slurm built without the pmix plugin answers. Texts and
 * exit codes from the Slurm 22.05 oracle (`srun --mpi=list` on stdout, exit 0).
 */

export const MPI_TYPES = ["none", "pmi2"] as const;
export type MpiType = (typeof MPI_TYPES)[number];

export type MpiChoice = { kind: "list"; stdout: string } | { kind: "ok"; type: MpiType } | { kind: "error"; stderr: string };

/** `srun --mpi=list`: the plugin names, one per line after a tab. */
export function mpiListText(): string {
  return `MPI plugin types are...\n${MPI_TYPES.map((t) => `\t${t}\n`).join("")}`;
}

/** Slurm's lines for a type no plugin is there for (as when a plugin was not built). */
function unknownType(name: string): string {
  return [
    `Couldn't find the specified plugin name for mpi/${name} looking at all files`,
    `cannot find mpi plugin for mpi/${name}`,
    `MPI: Cannot create context for mpi/${name}`,
    "MPI: Unable to load any plugin",
    `Invalid MPI type '${name}', --mpi=list for acceptable types`,
  ].map((l) => `srun: error: ${l}\n`).join("");
}

/**
 * The type a step uses: `requested` (--mpi or SLURM_MPI_TYPE, undefined when neither), else
 * `confDefault` (MpiDefault=, undefined when unset), else none. "list" lists the types.
 */
export function chooseMpi(requested: string | undefined, confDefault: string | undefined): MpiChoice {
  const name = (requested ?? confDefault ?? "none").trim();
  if (name === "list") return { kind: "list", stdout: mpiListText() };
  const known = MPI_TYPES.find((t) => t === name.toLowerCase());
  return known === undefined ? { kind: "error", stderr: unknownType(name) } : { kind: "ok", type: known };
}
