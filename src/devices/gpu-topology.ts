/**
 * @module devices/gpu-topology
 * The GPU link topology a node registers (NodeInfo.gpuTopology) and the
 * scheduler reads. On the wire it is the pairwise link-quality matrix
 * (devices/link-matrix `linkQuality`: higher is better), rows joined by ";",
 * "-1" on the diagonal: "-1,484,484;484,-1,484;484,484,-1". Quality keeps what
 * placement needs (fabric vs PCIe vs across sockets) whether the node discovered
 * its devices or declared them with gres.conf `Links=`.
 */
import { emptyMatrix, type GpuLink, type LinkMatrix } from "./inventory.ts";
import { linkQuality, pairQuality } from "./link-matrix.ts";

/** Link quality for a gres.conf Links number: N fabric links, or 0 = no direct link (PCIe through the host). */
export function qualityOfLinksCount(n: number): number {
  if (n <= 0) return linkQuality({ type: "PCIE", weight: 40, hops: 2, bandwidthClass: 1, bandwidthMBps: 0, code: "PHB" });
  return linkQuality({ type: "XGMI", weight: 15, hops: 1, bandwidthClass: n >= 2 ? 5 : 4, bandwidthMBps: 0, code: `L${n}` });
}

/** Wire text from a quality matrix (rows of equal length, diagonal ignored). */
export function formatQualityRows(rows: number[][]): string {
  return rows.map((row, a) => row.map((q, b) => (a === b ? -1 : Math.max(0, Math.round(q)))).join(",")).join(";");
}

/** Wire text from gres.conf Links rows (one per GPU); "" when any row is missing or the wrong length. */
export function topologyFromLinks(links: (number[] | undefined)[]): string {
  const n = links.length;
  if (n === 0 || links.some((row) => row === undefined || row.length !== n)) return "";
  return formatQualityRows(links.map((row) => row!.map((v) => qualityOfLinksCount(v))));
}

/** Wire text from a discovered LinkMatrix. */
export function topologyFromMatrix(matrix: LinkMatrix): string {
  if (matrix.size === 0) return "";
  const rows = Array.from({ length: matrix.size }, (_, a) => Array.from({ length: matrix.size }, (_, b) => (a === b ? -1 : pairQuality(matrix, a, b))));
  return formatQualityRows(rows);
}

/** Declared shapes for `spur up --gpu-topology`: Links rows for `count` GPUs. */
export function declaredLinks(shape: string, count: number): number[][] | string {
  const hive = /^hives?:(\d+)$/.exec(shape);
  const size = shape === "xgmi" || shape === "nvlink" || shape === "full" ? count : shape === "pairs" ? 2 : hive ? Number(hive[1]) : shape === "none" || shape === "pcie" ? 1 : 0;
  if (size < 1) return `unknown GPU topology "${shape}" (full, xgmi, nvlink, pairs, hives:N, pcie)`;
  return Array.from({ length: count }, (_, a) =>
    Array.from({ length: count }, (_, b) => (a === b ? -1 : Math.floor(a / size) === Math.floor(b / size) ? 1 : 0)),
  );
}

const parsedCache = new Map<string, LinkMatrix | undefined>();
const PARSED_CACHE_MAX = 256;

/** LinkMatrix for placement from the wire text; undefined when empty, malformed or not `count` GPUs wide. Memoized (pure). */
export function parseGpuTopology(text: string, count: number): LinkMatrix | undefined {
  if (text === "" || count === 0) return undefined;
  const key = `${count}|${text}`;
  if (parsedCache.has(key)) return parsedCache.get(key);
  const rows = text.split(";").map((r) => r.split(",").map(Number));
  let matrix: LinkMatrix | undefined;
  if (rows.length === count && rows.every((r) => r.length === count && r.every((v) => Number.isFinite(v)))) {
    matrix = emptyMatrix(count);
    for (let a = 0; a < count; a++) {
      for (let b = 0; b < count; b++) if (a !== b) matrix.links[a]![b] = linkOfQuality(rows[a]![b]!);
    }
  }
  if (parsedCache.size >= PARSED_CACHE_MAX) parsedCache.clear();
  parsedCache.set(key, matrix);
  return matrix;
}

/** A link whose linkQuality() is exactly `q` (class = hundreds, closeness = the rest). */
function linkOfQuality(q: number): GpuLink {
  const bandwidthClass = Math.floor(Math.max(0, q) / 100);
  const weight = 99 - (Math.max(0, q) % 100);
  return { type: bandwidthClass >= 3 ? "XGMI" : bandwidthClass >= 1 ? "PCIE" : "SYS", weight, hops: 1, bandwidthClass, bandwidthMBps: 0, code: `Q${q}` };
}
