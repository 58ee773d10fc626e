/**
 * @module roles/local-topology
 * The gres.conf and topology.conf that `spur up` writes beside spur.conf for
 * its fake devices: one gres.conf line per GPU with a device file and the
 * declared `Links=` (fully connected XGMI/NVLink by default), and, with
 * `--nodes-per-switch N`, a two-level switch tree. Pure text builders.
 */
import { declaredLinks } from "../devices/gpu-topology.ts";

/** Device file Slurm sites name in File= for GPU `i` of this model. */
export function fakeGpuFile(model: string, i: number): string {
  return /^(mi|gfx|radeon|instinct)/i.test(model) || model === "" ? `/dev/dri/renderD${128 + i}` : `/dev/nvidia${i}`;
}

/**
 * gres.conf text for `names` with `count` GPUs each; an error text for an unknown shape.
 * With `sockets` > 1 (and the node's `cpus`: its cores, CPUs / threads per core), GPUs are split
 * evenly over the sockets and each line says its socket's cores in `Cores=` (as on a two-socket GPU server).
 */
export function localGresConf(names: string[], count: number, model: string, shape: string, sockets = 1, cpus = 0): string {
  const links = declaredLinks(shape, count);
  if (typeof links === "string") throw new Error(`spur: error: ${links}`);
  const lines = ["# Written by `spur up`: declared (fake) GPUs and their links, gres.conf syntax."];
  const nodes = names.length === 1 ? names[0] : `n[1-${names.length}]`;
  for (let i = 0; i < count; i++) {
    const type = model ? ` Type=${model}` : "";
    lines.push(`NodeName=${nodes} Name=gpu${type} File=${fakeGpuFile(model, i)} Links=${links[i]!.join(",")}${coresOf(i, count, sockets, cpus)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** " Cores=8-15" for GPU `i` of `count` split evenly over `sockets` sockets of `cpus` cores (Cores= are core ids); "" for one socket. */
function coresOf(i: number, count: number, sockets: number, cpus: number): string {
  if (sockets <= 1 || cpus < sockets) return "";
  const socket = Math.floor((i * sockets) / count);
  const per = Math.floor(cpus / sockets);
  return ` Cores=${socket * per}-${socket * per + per - 1}`;
}

/** topology.conf text: leaf switches s1.. of `perSwitch` nodes each under one top switch. */
export function localTopologyConf(nodeCount: number, perSwitch: number): string {
  const lines = ["# Written by `spur up --nodes-per-switch`: leaf switches under one top switch."];
  const leaves: string[] = [];
  for (let first = 1, s = 1; first <= nodeCount; first += perSwitch, s++) {
    const last = Math.min(nodeCount, first + perSwitch - 1);
    lines.push(`SwitchName=s${s} Nodes=${first === last ? `n${first}` : `n[${first}-${last}]`}`);
    leaves.push(`s${s}`);
  }
  if (leaves.length > 1) lines.push(`SwitchName=top Switches=s[1-${leaves.length}]`);
  return `${lines.join("\n")}\n`;
}
