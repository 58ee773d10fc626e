/**
 * @module lib/index-ranges
 * Index lists in Slurm's range form ("0-3,5"). Its own module so that CLI formatting
 * (compat/format/gres-sockets.ts) need not load sched/model/resources.ts and the
 * placement code behind it (start-up cost; tests/unit/startup).
 */

/** Sorted ids as ranges: [5, 0, 1, 2, 3] → "0-3,5". */
export function compressIndices(ids: number[]): string {
  const sorted = [...ids].sort((a, b) => a - b);
  const parts: string[] = [];
  let i = 0;
  while (i < sorted.length) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(",");
}
