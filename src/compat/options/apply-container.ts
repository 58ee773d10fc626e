/**
 * @module compat/options/apply-container
 * Handlers of the container options: pyxis's (table-container.ts) and Slurm's own
 * --container=BUNDLE. Each checks its value at submit time and records it in the job's
 * environment under Slurm's SPANK forwarding names (see compat/container-request), so
 * spurd finds the request in the batch script's and each step's environment.
 */
import { err, ok, type Result } from "../../lib/result.ts";
import { BUNDLE_KEY, parseEnvNames, parseMounts, spankKey } from "../container-request.ts";
import { absolutePath, type BuildState } from "./build-state.ts";
import type { Assignment } from "./env-input.ts";

type Handler = (st: BuildState, a: Assignment) => Result<void>;
const DONE: Result<void> = ok(undefined);

function set(st: BuildState, key: string, value: string): Result<void> {
  st.containerEnv = { ...(st.containerEnv ?? {}), [key]: value };
  return DONE;
}

const text = (option: string): Handler => (st, a) => {
  const v = a.value ?? "";
  if (v === "") return err("BadContainerOption", `--${option} requires a value`);
  return set(st, spankKey(option), v);
};

/** A pyxis on/off pair: both spellings write the same key, the last one given wins. */
const toggle = (option: string, on: boolean): Handler => (st, a) => set(st, spankKey(option), on !== a.reset ? "1" : "0");

function image(st: BuildState, a: Assignment): Result<void> {
  const v = a.value ?? "";
  if (v === "") return err("BadContainerOption", "--container-image requires a value");
  // A relative path is the submitter's: make it absolute so the node finds it (pyxis: "./x").
  const path = v.startsWith("./") || v.startsWith("../") ? absolutePath(st.cwd, v) : v;
  return set(st, spankKey("container-image"), path);
}

function mounts(st: BuildState, a: Assignment): Result<void> {
  const r = parseMounts(a.value ?? "");
  if (!r.ok) return r;
  const resolved = r.value.map((m) => [absolutePath(st.cwd, m.source), m.destination, m.flags.join("+")].filter((p) => p !== "").join(":"));
  return set(st, spankKey("container-mounts"), resolved.join(","));
}

function envNames(st: BuildState, a: Assignment): Result<void> {
  const r = parseEnvNames(a.value ?? "");
  if (!r.ok) return r;
  return set(st, spankKey("container-env"), r.value.join(","));
}

/**
 * Slurm's --container=PATH: the absolute path of an OCI bundle; the job records it as given. An
 * empty one is accepted and runs no container (Slurm 22.05, oracle: Container= empty).
 */
function bundle(st: BuildState, a: Assignment): Result<void> {
  const v = a.value ?? "";
  st.spec.container = v;
  if (v === "") {
    const { [BUNDLE_KEY]: _dropped, ...rest } = st.containerEnv ?? {};
    st.containerEnv = rest;
    return DONE;
  }
  return set(st, BUNDLE_KEY, absolutePath(st.cwd, v));
}

export const CONTAINER_HANDLERS: Readonly<Record<string, Handler>> = {
  container: bundle,
  "container-image": image,
  "container-mounts": mounts,
  "container-workdir": text("container-workdir"),
  "container-env": envNames,
  "container-remap-root": toggle("container-remap-root", true),
  "no-container-remap-root": toggle("container-remap-root", false),
  "container-writable": toggle("container-writable", true),
  "container-readonly": toggle("container-writable", false),
  "container-mount-home": toggle("container-mount-home", true),
  "no-container-mount-home": toggle("container-mount-home", false),
  "no-container-entrypoint": () => DONE, // Spur never runs an image's entrypoint: this is what it does anyway
};
