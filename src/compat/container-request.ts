/**
 * @module compat/container-request
 * What a job asks of a container, as data. The pyxis options (--container-image,
 * --container-mounts, ...) travel in the job's environment the way Slurm forwards
 * SPANK plugin options (`_SLURM_SPANK_OPTION_pyxis_<name>`), so the batch script
 * and every srun step see the same request; Slurm's own --container=BUNDLE is
 * SLURM_CONTAINER. Pure: parsing and checking only; spurd does the launching.
 */
import { err, ok, type Result } from "../lib/result.ts";

/** Slurm's prefix for forwarded SPANK options, and pyxis's plugin name. */
export const SPANK_PREFIX = "_SLURM_SPANK_OPTION_pyxis_";

/** Environment key of a pyxis option: "container-image" → "_SLURM_SPANK_OPTION_pyxis_container_image". */
export const spankKey = (option: string): string => `${SPANK_PREFIX}${option.replace(/-/g, "_")}`;

/** The job's own --container=PATH (an OCI bundle), as Slurm exports it. */
export const BUNDLE_KEY = "SLURM_CONTAINER";

export interface ContainerMount {
  source: string;
  destination: string;
  /** Mount flags from the "+"-separated list ("ro", "rprivate", ...); "rbind" is implied. */
  flags: string[];
}

export interface ContainerRequest {
  /** --container-image as given ("" with --container=BUNDLE). */
  image: string;
  /** --container=PATH: an OCI bundle directory (config.json + its root). */
  bundle: string;
  mounts: ContainerMount[];
  /** --container-workdir; "" = the job's working directory. */
  workdir: string;
  /** --container-env: variables whose job value wins over the image's. */
  keepEnv: string[];
  remapRoot: boolean;
  writable: boolean;
  mountHome: boolean;
}

const MOUNT_FLAGS = new Set(["ro", "rw", "private", "rprivate", "shared", "rshared", "slave", "rslave", "nosuid", "nodev", "noexec", "bind", "rbind"]);

/** --container-mounts=SRC:DST[:FLAGS][,SRC:DST...] (pyxis syntax; DST alone-less "SRC" mounts at the same path). */
export function parseMounts(text: string): Result<ContainerMount[]> {
  const mounts: ContainerMount[] = [];
  for (const item of text.split(",")) {
    if (item === "") continue;
    const parts = item.split(":");
    if (parts.length > 3) return err("BadContainerMounts", `--container-mounts: invalid mount "${item}": expected SRC:DST[:FLAGS]`);
    const source = parts[0] ?? "";
    const destination = parts[1] ?? source;
    const flags = (parts[2] ?? "").split("+").filter((f) => f !== "");
    if (source === "" || destination === "") return err("BadContainerMounts", `--container-mounts: invalid mount "${item}": empty source or destination`);
    if (!destination.startsWith("/") && !destination.startsWith(".")) {
      return err("BadContainerMounts", `--container-mounts: invalid mount "${item}": the destination must start with "/" or "."`);
    }
    const bad = flags.find((f) => !MOUNT_FLAGS.has(f));
    if (bad !== undefined) return err("BadContainerMounts", `--container-mounts: invalid mount "${item}": unknown flag "${bad}"`);
    mounts.push({ source, destination, flags });
  }
  return ok(mounts);
}

/** --container-env=NAME[,NAME...]. */
export function parseEnvNames(text: string): Result<string[]> {
  const names = text.split(",").filter((n) => n !== "");
  const bad = names.find((n) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(n));
  if (bad !== undefined) return err("BadContainerEnv", `--container-env: invalid variable name "${bad}"`);
  return ok(names);
}

const yes = (v: string | undefined): boolean => v === "1";

/** The container a job's environment asks for, or undefined when it asks for none. */
export function requestFromEnv(env: Readonly<Record<string, string | undefined>>): Result<ContainerRequest | undefined> {
  const image = env[spankKey("container-image")] ?? "";
  const bundle = env[BUNDLE_KEY] ?? "";
  if (image === "" && bundle === "") return ok(undefined);
  if (image !== "" && bundle !== "") return err("ContainerConflict", "--container and --container-image cannot be used together");
  const mounts = parseMounts(env[spankKey("container-mounts")] ?? "");
  if (!mounts.ok) return mounts;
  const keepEnv = parseEnvNames(env[spankKey("container-env")] ?? "");
  if (!keepEnv.ok) return keepEnv;
  return ok({
    image, bundle, mounts: mounts.value, keepEnv: keepEnv.value,
    workdir: env[spankKey("container-workdir")] ?? "",
    remapRoot: yes(env[spankKey("container-remap-root")]),
    writable: yes(env[spankKey("container-writable")]),
    mountHome: yes(env[spankKey("container-mount-home")]),
  });
}

/** The request's variables out of a job environment (srun passes them on to its tasks). */
export function containerEnvOf(env: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith(SPANK_PREFIX) || k === BUNDLE_KEY));
}

/**
 * How an image reference is read (pyxis: a path starts with "/" or "./", anything else names a
 * registry image). Local forms: a root file system directory, an OCI image layout (directory
 * or tar archive), a root file system tar archive, a squashfs file.
 */
export type ImageForm = "registry" | "path";

export function imageForm(image: string): ImageForm {
  return image.startsWith("/") || image.startsWith("./") || image.startsWith("../") ? "path" : "registry";
}
