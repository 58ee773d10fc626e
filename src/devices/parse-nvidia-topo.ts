/**
 * @module devices/parse-nvidia-topo
 * Pure parser for `nvidia-smi topo -m`: a tab-separated matrix whose header names
 * GPUn/NICn columns, then "CPU Affinity", "NUMA Affinity" (and on newer drivers
 * "GPU NUMA ID"); cells are X, NV#, PIX, PXB, PHB, NODE, SYS. The legend is ignored.
 */
import { err, ok, type Result } from "../lib/result.ts";
import { assert } from "../lib/assert.ts";

export interface NvidiaTopo {
  /** GPU x GPU connection codes, "X" on the diagonal. */
  gpuCodes: string[][];
  /** GPU x NIC codes. */
  nicCodes: string[][];
  /** Per GPU, "" when the column is absent or N/A. */
  cpuAffinity: string[];
  /** Per GPU, -1 when absent or N/A. */
  numaAffinity: number[];
}

const ANSI = /\x1b\[[0-9;]*m/g;

/** Codes nvidia-smi prints in matrix cells; anything else is not a matrix row. */
export function isTopoCode(cell: string): boolean {
  return /^(X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)$/.test(cell);
}

function splitRow(line: string): string[] {
  return line.replace(ANSI, "").split("\t").map((c) => c.trim());
}

function rowsOf(lines: string[], prefix: string, width: number): Result<string[][]> {
  const rows: string[][] = [];
  for (const line of lines) {
    const cells = splitRow(line);
    if (!new RegExp(`^${prefix}\\d+$`).test(cells[0] ?? "")) continue;
    if (Number((cells[0] ?? "").slice(prefix.length)) !== rows.length) return err("BadNvidiaTopo", `topo -m: ${cells[0]} out of order`);
    if (cells.length < width) return err("BadNvidiaTopo", `topo -m: row ${cells[0]} has ${cells.length} cells, expected ${width}`);
    rows.push(cells);
  }
  return ok(rows);
}

export function parseNvidiaTopo(text: string): Result<NvidiaTopo> {
  const lines = text.split("\n");
  const headerAt = lines.findIndex((l) => /^\s*GPU0(\t|$)/.test(l.replace(ANSI, "")));
  if (headerAt < 0) return err("BadNvidiaTopo", "topo -m: no header row starting with GPU0");
  const header = splitRow(lines[headerAt]!);
  // The header starts with an empty cell (tab first) so columns line up with row cells.
  if (header[0] !== "") header.unshift("");
  const gpuCols = header.flatMap((h, i) => (/^GPU\d+$/.test(h) ? [i] : []));
  const nicCols = header.flatMap((h, i) => (/^NIC\d+$/.test(h) ? [i] : []));
  const cpuCol = header.indexOf("CPU Affinity");
  const numaCol = header.indexOf("NUMA Affinity");
  const rows = rowsOf(lines.slice(headerAt + 1), "GPU", 1 + gpuCols.length);
  if (!rows.ok) return rows;
  if (rows.value.length !== gpuCols.length) return err("BadNvidiaTopo", `topo -m: ${gpuCols.length} GPU columns but ${rows.value.length} GPU rows`);
  const topo: NvidiaTopo = { gpuCodes: [], nicCodes: [], cpuAffinity: [], numaAffinity: [] };
  for (const cells of rows.value) {
    const codes = gpuCols.map((c) => cells[c] ?? "");
    const bad = codes.find((c) => !isTopoCode(c));
    if (bad !== undefined) return err("BadNvidiaTopo", `topo -m: ${cells[0]} has unknown cell "${bad}"`);
    topo.gpuCodes.push(codes);
    topo.nicCodes.push(nicCols.map((c) => cells[c] ?? ""));
    const cpu = cpuCol < 0 ? "" : (cells[cpuCol] ?? "");
    topo.cpuAffinity.push(cpu === "N/A" ? "" : cpu);
    const numa = numaCol < 0 ? "" : (cells[numaCol] ?? "");
    topo.numaAffinity.push(/^\d+$/.test(numa) ? Number(numa) : -1);
  }
  if (!topo.gpuCodes.every((r, i) => r[i] === "X")) return err("BadNvidiaTopo", "topo -m: a GPU is not X to itself");
  assert(topo.gpuCodes.length === topo.cpuAffinity.length, "one affinity per GPU row");
  return ok(topo);
}
