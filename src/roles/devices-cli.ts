/**
 * @module roles/devices-cli
 * `spurd --discover [--json] [--root DIR]` and `spur cdi generate [--vendor amd|nvidia]
 * [--format json|yaml] [--root DIR] [--output DIR]`: what this node's GPUs are, and their
 * CDI specs. The root option points discovery at a sysfs snapshot (tests, fixtures).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseFlagsOrThrow } from "../lib/flags.ts";
import { discoverDevices } from "../devices/discover.ts";
import { formatDiscover, formatDiscoverJson } from "../devices/format-discover.ts";
import { runNvidiaSmi } from "../devices/run-nvidia-smi.ts";
import { buildCdiSpec, cdiSpecFileName, renderCdiJson, type CdiSpec } from "../devices/cdi.ts";

const DISCOVER_SPEC = { values: [["--root"], ["--conf", "-f"]], booleans: [["--discover"], ["--json"]] } as const;

/** `spur cdi generate`'s flags (admin/cdi.ts declares them). */
export interface CdiFlags {
  /** amd or nvidia; default: both. */
  vendor?: string | undefined;
  /** json (default) or yaml. */
  format?: string | undefined;
  /** A sysfs snapshot to discover from (default /). */
  root?: string | undefined;
  /** Write the specs into this directory instead of stdout. */
  output?: string | undefined;
}

async function inventory(root: string) {
  const smi = root === "/" ? await runNvidiaSmi() : { ok: true as const, value: undefined };
  if (!smi.ok) process.stderr.write(`spurd: warning: nvidia-smi: ${smi.error.message}\n`);
  return discoverDevices(root, smi.ok ? smi.value : undefined);
}

export async function discoverMain(argv: string[]): Promise<number> {
  const flags = parseFlagsOrThrow("spurd", argv, DISCOVER_SPEC);
  const inv = await inventory(flags.values["--root"] ?? "/");
  if (!inv.ok) {
    process.stderr.write(`spurd: error: ${inv.error.message}\n`);
    return 1;
  }
  // How this host would contain jobs (detection only: nothing is created here).
  const { detectCgroups } = await import("../agent/cgroup/detect.ts");
  const { loadConstraints } = await import("../agent/cgroup/read-cgroup-conf.ts");
  const { containmentText } = await import("../agent/cgroup/cgroup-conf.ts");
  const { confPath } = await import("./conf-file.ts");
  const { parseConf } = await import("../compat/conf/slurm-conf.ts");
  // What cgroup.conf (and spur.conf) switch on, when this host has a configuration; Slurm's defaults otherwise.
  const path = confPath(flags.values["--conf"]);
  const spurConf = existsSync(path) ? parseConf(readFileSync(path, "utf8")) : undefined;
  const constraints = loadConstraints(path, spurConf?.ok ? spurConf.value.globals : new Map());
  if (!constraints.ok) {
    process.stderr.write(`spurd: error: ${constraints.error.message}\n`);
    return 1;
  }
  const containment = containmentText(detectCgroups("discover", "autodetect", false).summary, constraints.value);
  if (flags.on["--json"]) {
    const json = JSON.parse(formatDiscoverJson(inv.value)) as Record<string, unknown>;
    process.stdout.write(`${JSON.stringify({ ...json, containment }, null, 2)}\n\n`);
  } else process.stdout.write(`${formatDiscover(inv.value)}Job containment: ${containment}\n`);
  return 0;
}

/** `spur cdi generate`: this node's GPUs as CDI specs. */
export async function cdiMain(flags: CdiFlags): Promise<number> {
  const vendor: "amd" | "nvidia" | undefined = flags.vendor === "amd" || flags.vendor === "nvidia" ? flags.vendor : undefined;
  if (flags.vendor !== undefined && vendor === undefined) {
    process.stderr.write(`spur: error: --vendor takes amd or nvidia, not ${flags.vendor}\n`);
    return 1;
  }
  const inv = await inventory(flags.root ?? "/");
  if (!inv.ok) {
    process.stderr.write(`spur: error: ${inv.error.message}\n`);
    return 1;
  }
  const vendors: readonly ("amd" | "nvidia")[] = vendor !== undefined ? [vendor] : ["amd", "nvidia"];
  const yaml = flags.format === "yaml";
  const out = flags.output;
  let wrote = 0;
  for (const vendor of vendors) {
    if (!inv.value.gpus.some((g) => g.vendor === vendor)) continue;
    const spec = buildCdiSpec(inv.value, vendor);
    if (!spec.ok) {
      process.stderr.write(`spur: error: ${spec.error.message}\n`);
      return 1;
    }
    const text = yaml ? renderCdiYaml(spec.value) : renderCdiJson(spec.value);
    if (out) {
      mkdirSync(out, { recursive: true });
      const file = join(out, cdiSpecFileName(vendor, yaml ? "yaml" : "json"));
      writeFileSync(file, text);
      process.stderr.write(`wrote ${file}\n`);
    } else process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    wrote++;
  }
  if (wrote === 0) process.stderr.write("spur: no GPUs found: no CDI spec written\n");
  return 0;
}

/** The spec as YAML, through Bun's own YAML (a shell-side global, so it lives here, not in devices/). */
export function renderCdiYaml(spec: CdiSpec): string {
  const text = Bun.YAML.stringify(spec, null, 2);
  return text.endsWith("\n") ? text : `${text}\n`;
}
