/**
 * @module compat/mpi-type
 * srun's `--mpi=TYPE` (also SLURM_MPI_TYPE, and MpiDefault= in the configuration): which MPI
 * plugin starts the step's tasks. Spur has `none` (nothing: mpirun's own daemons, or a program
 * that is not MPI), `pmi2` (the PMI-1/PMI-2 wire protocol served on each node, agent/pmi-serve.ts)
 * and `pmix` (a PMIx server per node and step on the system's libpmix, agent/pmix/), which exists
 * only where that library can be loaded: without it `pmix` is answered as a Slurm whose pmix
 * plugin cannot load its library answers. Texts and exit codes from the Slurm 22.05 oracle
 * (`srun --mpi=list` on stdout, exit 0; its list there is `pmix`, `none`, `cray_shasta`, `pmi2`
 * and the line naming the pmix versions).
 */

export const MPI_TYPES = ["none", "pmi2", "pmix"] as const;
export type MpiType = (typeof MPI_TYPES)[number];

export type MpiChoice = { kind: "list"; stdout: string } | { kind: "ok"; type: MpiType } | { kind: "error"; stderr: string };

/** What srun found of PMIx on its host: the library's major version, or why it could not be loaded. */
export type PmixAvailability = { kind: "found"; major: number } | { kind: "missing"; reason: string };

/** `srun --mpi=list`: the plugin names, one per line after a tab, in the oracle's order; then the pmix versions. */
export function mpiListText(pmix: PmixAvailability): string {
  const types = pmix.kind === "found" ? ["pmix", "none", "pmi2"] : ["none", "pmi2"];
  const versions = pmix.kind === "found" ? `specific pmix plugin versions available: pmix_v${pmix.major}\n` : "";
  return `MPI plugin types are...\n${types.map((t) => `\t${t}\n`).join("")}${versions}`;
}

/** Slurm's lines for a type no plugin is there for (as when a plugin was not built). */
function unknownType(name: string, loadError = ""): string {
  const lines = loadError === ""
    ? [`Couldn't find the specified plugin name for mpi/${name} looking at all files`, `cannot find mpi plugin for mpi/${name}`]
    : [loadError, `Couldn't load specified plugin name for mpi/${name}: Dlopen of plugin file failed`];
  return [
    ...lines,
    `MPI: Cannot create context for mpi/${name}`,
    "MPI: Unable to load any plugin",
    `Invalid MPI type '${name}', --mpi=list for acceptable types`,
  ].map((l) => `srun: error: ${l}\n`).join("");
}

/**
 * The type a step uses: `requested` (--mpi or SLURM_MPI_TYPE, undefined when neither), else
 * `confDefault` (MpiDefault=, undefined when unset), else none. "list" lists the types. `pmix`
 * (and `pmix_vN` for the library's major version N) needs the library (`pmix`).
 */
export function chooseMpi(requested: string | undefined, confDefault: string | undefined, pmix: PmixAvailability): MpiChoice {
  const name = (requested ?? confDefault ?? "none").trim();
  const lower = name.toLowerCase();
  if (lower === "list") return { kind: "list", stdout: mpiListText(pmix) };
  if (lower === "pmix" || /^pmix_v\d+$/.test(lower)) {
    if (pmix.kind === "missing") return { kind: "error", stderr: unknownType(name, pmix.reason) };
    if (lower === "pmix" || lower === `pmix_v${pmix.major}`) return { kind: "ok", type: "pmix" };
    return { kind: "error", stderr: unknownType(name) };
  }
  const known = MPI_TYPES.find((t) => t === lower && t !== "pmix");
  return known === undefined ? { kind: "error", stderr: unknownType(name) } : { kind: "ok", type: known };
}
