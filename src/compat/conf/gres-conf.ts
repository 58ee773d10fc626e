/**
 * @module compat/conf/gres-conf
 * Reads gres.conf as Slurm writes it: one record per line (`NodeName=n[1-4]
 * Name=gpu Type=mi300x File=/dev/dri/renderD[128-135] Links=-1,1,... Cores=0-7`),
 * plus `AutoDetect=` either alone (all nodes) or on a NodeName line. Pure: the
 * caller reads the file. Only GPUs are scheduled; other names are kept and ignored.
 */
import { err, ok, type Result } from "../../lib/result.ts";
import { expandHostlist } from "../hostlist.ts";
import { confGet, joinContinuations, parseConf, type ConfRecord } from "./slurm-conf.ts";

/** One GPU as gres.conf declares it for one node. */
export interface DeclaredGpu {
  type: string;
  /** Device file ("/dev/dri/renderD128"), "" when the line gave a Count without File. */
  file: string;
  /** Slurm's Links: one number per GPU of the node, -1 for itself, 0 none, N = N fabric links. */
  links: number[] | undefined;
  /** Cores= text as written ("0-7"), "" when absent. */
  cores: string;
}

export interface NodeGres {
  /** "" (declared only), or the detector: nvml, rsmi, nvidia, spur, off. */
  autoDetect: string;
  gpus: DeclaredGpu[];
}

interface GresLine {
  nodes: string[] | "all";
  rec: ConfRecord;
}

export interface ParsedGresConf {
  autoDetect: string;
  lines: GresLine[];
}

/** Parse gres.conf text; a malformed line is an error naming its line number. */
export function parseGresConf(text: string): Result<ParsedGresConf> {
  const out: ParsedGresConf = { autoDetect: "", lines: [] };
  for (const { text: raw, line } of joinContinuations(text)) {
    const parsed = parseConf(raw);
    if (!parsed.ok) return err("BadConfig", `gres.conf line ${line}: ${parsed.error.message.replace(/^spur\.conf line \d+: /, "")}`);
    const rec = parsed.value.nodes[0] ?? { pairs: [...parsed.value.globals.entries()], line };
    if (rec.pairs.length === 0) continue;
    rec.line = line;
    const nodeName = confGet(rec, "NodeName");
    const name = confGet(rec, "Name");
    if (name === undefined) {
      const auto = confGet(rec, "AutoDetect");
      if (auto === undefined) return err("BadConfig", `gres.conf line ${line}: Name= is required`);
      if (nodeName === undefined) out.autoDetect = auto.toLowerCase();
      else out.lines.push({ nodes: expandNodes(nodeName), rec });
      continue;
    }
    const nodes = nodeName === undefined ? "all" : expandNodes(nodeName);
    if (nodes !== "all" && nodes.length === 0) return err("BadConfig", `gres.conf line ${line}: bad NodeName`);
    out.lines.push({ nodes, rec });
  }
  return ok(out);
}

function expandNodes(text: string): string[] {
  const r = expandHostlist(text);
  return r.ok ? r.value : [];
}

/** What gres.conf says about one node's GPUs, in declaration order (= GPU index order). */
export function gresForNode(conf: ParsedGresConf, node: string): Result<NodeGres> {
  const out: NodeGres = { autoDetect: conf.autoDetect, gpus: [] };
  for (const { nodes, rec } of conf.lines) {
    if (nodes !== "all" && !nodes.includes(node)) continue;
    const auto = confGet(rec, "AutoDetect");
    if (auto !== undefined) out.autoDetect = auto.toLowerCase();
    if ((confGet(rec, "Name") ?? "").toLowerCase() !== "gpu") continue;
    const made = gpusOfLine(rec);
    if (!made.ok) return made;
    out.gpus.push(...made.value);
  }
  return ok(out);
}

function gpusOfLine(rec: ConfRecord): Result<DeclaredGpu[]> {
  const type = confGet(rec, "Type") ?? "";
  const fileText = confGet(rec, "File") ?? "";
  const files = fileText === "" ? [] : expandNodes(fileText);
  if (fileText !== "" && files.length === 0) return err("BadConfig", `gres.conf line ${rec.line}: bad File=${fileText}`);
  const countText = confGet(rec, "Count");
  const count = countText === undefined ? Math.max(1, files.length) : Number(countText);
  if (!Number.isInteger(count) || count < 1) return err("BadConfig", `gres.conf line ${rec.line}: bad Count=${countText}`);
  if (files.length > 0 && files.length !== count) return err("BadConfig", `gres.conf line ${rec.line}: Count=${count} but File= names ${files.length} devices`);
  const linksText = confGet(rec, "Links");
  let links: number[] | undefined;
  if (linksText !== undefined) {
    links = linksText.split(",").map((v) => Number(v.trim()));
    if (links.some((v) => !Number.isInteger(v) || v < -1)) return err("BadConfig", `gres.conf line ${rec.line}: bad Links=${linksText}`);
    if (count !== 1) return err("BadConfig", `gres.conf line ${rec.line}: Links= needs one GPU per line`);
  }
  const cores = confGet(rec, "Cores") ?? "";
  return ok(Array.from({ length: count }, (_, i) => ({ type, file: files[i] ?? "", links, cores })));
}
