/**
 * @module compat/options/table-container
 * The pyxis container options (a SPANK plugin in Slurm, so absent from Slurm's own option
 * tables) that sites' job scripts already use; sbatch, srun and salloc all accept them, as
 * pyxis registers them for all three. Same row shape as table-sbatch.ts; handlers live in
 * apply-container.ts. Options Spur cannot honour warn or fail as the `spur` column says.
 */
import type { SbatchRow } from "./row-types.ts";

const row = (long: string, hasArg: "none" | "required", argKind: string, syntax: string, description: string, spur: SbatchRow["spur"]): SbatchRow => ({
  long, short: "", hasArg, argKind, syntax, validFor: "salloc,srun", sbatchEnv: "", sallocEnv: "", srunEnv: "", outputEnv: "",
  inMan: "yes", description, spur,
});

// prettier-ignore
export const CONTAINER_ROWS: readonly SbatchRow[] = [
  row("--container-image", "required", "string", "--container-image=[USER@][REGISTRY#]IMAGE[:TAG]|PATH", "[pyxis] Image of the container's file system: a local path (root directory, OCI layout, tar, squashfs).", "ok"),
  row("--container-mounts", "required", "list", "--container-mounts=SRC:DST[:FLAGS][,SRC:DST...]", "[pyxis] Bind mounts into the container; flags joined with \"+\" (ro+rprivate).", "ok"),
  row("--container-workdir", "required", "path", "--container-workdir=PATH", "[pyxis] Working directory inside the container.", "ok"),
  row("--container-env", "required", "list", "--container-env=NAME[,NAME...]", "[pyxis] Variables whose job value overrides the image's.", "ok"),
  row("--container-remap-root", "none", "none", "--container-remap-root", "[pyxis] Run as root inside the container (a user namespace maps it to the job's user).", "ok"),
  row("--no-container-remap-root", "none", "none", "--no-container-remap-root", "[pyxis] Run as the job's user inside the container.", "ok"),
  row("--container-writable", "none", "none", "--container-writable", "[pyxis] The container's file system is writable (changes are discarded at the end).", "ok"),
  row("--container-readonly", "none", "none", "--container-readonly", "[pyxis] The container's file system is read-only.", "ok"),
  row("--container-mount-home", "none", "none", "--container-mount-home", "[pyxis] Bind mount the user's home directory.", "ok"),
  row("--no-container-mount-home", "none", "none", "--no-container-mount-home", "[pyxis] Do not bind mount the user's home directory.", "ok"),
  row("--container-name", "required", "string", "--container-name=NAME", "[pyxis] Name under which the container is kept between steps.", "warn"),
  row("--container-save", "required", "path", "--container-save=PATH", "[pyxis] Save the container's file system to a squashfs file.", "error"),
  row("--container-entrypoint", "none", "none", "--container-entrypoint", "[pyxis] Run the image's entrypoint before the command.", "warn"),
  row("--no-container-entrypoint", "none", "none", "--no-container-entrypoint", "[pyxis] Do not run the image's entrypoint.", "ok"),
  row("--container-entrypoint-log", "none", "none", "--container-entrypoint-log", "[pyxis] Print the entrypoint's output.", "warn"),
];
