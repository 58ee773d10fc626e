/**
 * @module roles/node-gpus-read
 * The shell around devices/node-gpus for spurd: reads gres.conf from the
 * directory of spur.conf (where Slurm looks for it), runs discovery when it says
 * `AutoDetect=`, and returns what the node registers. A broken gres.conf is
 * fatal (as in Slurm); failed discovery falls back to the declared facts.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gresForNode, parseGresConf, type NodeGres } from "../compat/conf/gres-conf.ts";
import { AUTODETECT_VALUES, nodeGpuFacts, type NodeGpuFacts } from "../devices/node-gpus.ts";
import { discoverDevices } from "../devices/discover.ts";
import { nodeCpuTopology } from "../devices/cpu-topology.ts";
import { readOsCpus } from "../devices/read-sysfs.ts";
import { runNvidiaSmi, type NvidiaSmiTexts } from "../devices/run-nvidia-smi.ts";
import type { DeviceInventory } from "../devices/inventory.ts";

/** gres.conf beside spur.conf, for `node`; undefined when there is none. Throws on a malformed file. */
export function readNodeGres(confPath: string, node: string): NodeGres | undefined {
  const path = join(dirname(confPath), "gres.conf");
  if (!existsSync(path)) return undefined;
  const parsed = parseGresConf(readFileSync(path, "utf8"));
  if (!parsed.ok) throw new Error(parsed.error.message);
  const mine = gresForNode(parsed.value, node);
  if (!mine.ok) throw new Error(mine.error.message);
  return mine.value;
}

/** nvidia-smi outputs recorded beside a sysfs snapshot (the fixture layout), when present. */
function recordedNvidiaSmi(root: string): NvidiaSmiTexts | undefined {
  const read = (name: string) => (existsSync(join(root, name)) ? readFileSync(join(root, name), "utf8") : undefined);
  const query = read("nvidia-smi-q.xml");
  if (query === undefined) return undefined;
  const topo = read("nvidia-smi-topo.txt");
  const list = read("nvidia-smi-L.txt");
  return { query, ...(topo !== undefined ? { topo } : {}), ...(list !== undefined ? { list } : {}) };
}

/** The node's GPU facts; `devicesRoot` points discovery at a sysfs snapshot (tests). */
export async function readNodeGpus(
  confPath: string, node: string,
  configured: { gpuCount: number; gpuModel: string; sockets: number; coresPerSocket: number; threadsPerCore: number },
  devicesRoot: string | undefined,
): Promise<NodeGpuFacts> {
  const gres = readNodeGres(confPath, node);
  let inventory: DeviceInventory | undefined;
  const warnings: string[] = [];
  if (gres !== undefined && AUTODETECT_VALUES.has(gres.autoDetect)) {
    const root = devicesRoot ?? "/";
    const smi = root === "/" ? await runNvidiaSmi() : { ok: true as const, value: recordedNvidiaSmi(root) };
    const found = discoverDevices(root, smi.ok ? smi.value : undefined);
    if (found.ok) inventory = found.value;
    else warnings.push(`GPU discovery failed: ${found.error.message}`);
  }
  // Cores= and discovered CPU lists are registered in logical numbering, mapped through the host's CPU topology.
  const cpus = nodeCpuTopology(configured, readOsCpus(devicesRoot ?? "/"));
  const facts = nodeGpuFacts(configured, gres, inventory, cpus);
  return { ...facts, warnings: [...warnings, ...facts.warnings] };
}
