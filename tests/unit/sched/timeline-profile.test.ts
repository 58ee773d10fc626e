/**
 * The timeline's step function when one node holds many slots: past 64 events its profile
 * sorts them another way (through an index instead of in place), and a node free, then held,
 * then free again has several feasible start intervals, which the backfill grid keeps apart
 * from the first. Checked against brute force over every second, as properties.test.ts does
 * for a few slots.
 */
import { describe, expect, it } from "vitest";
import { createRng, type Rng } from "../../../src/lib/rng.ts";
import { Timeline, INFINITE_END, type Slot } from "../../../src/sched/plan/timeline.ts";

const CAP = { cpus: 64, memMiB: 6400, gpus: 8 };
const NOW = 1000;

function randomTimeline(rng: Rng, count: number): { t: Timeline; slots: Slot[] } {
  const t = new Timeline(NOW, 1, [CAP]);
  const slots: Slot[] = [];
  for (let k = 0; k < count; k++) {
    // some slots started before now (clipped to now), a few without an end
    const start = NOW + rng.int(-5, 80);
    const end = rng.next() < 0.05 ? INFINITE_END : Math.max(start, NOW) + rng.int(1, 50);
    const slot = { start, end, cpus: rng.int(0, 2), memMiB: rng.int(0, 150), gpus: rng.int(0, 1) };
    slots.push(slot);
    t.add(0, slot);
  }
  return { t, slots };
}

function freeAt(slots: readonly Slot[], x: number): { cpus: number; memMiB: number; gpus: number } {
  const f = { ...CAP };
  for (const s of slots) {
    if (Math.max(s.start, NOW) <= x && x < s.end) {
      f.cpus -= s.cpus;
      f.memMiB -= s.memMiB;
      f.gpus -= s.gpus;
    }
  }
  return f;
}

describe("timeline with many slots on a node", () => {
  for (const count of [20, 31, 33, 45, 80]) {
    for (let seed = 1; seed <= 6; seed++) {
      it(`${count} slots, seed ${seed}: minFree and feasibleStarts agree with brute force`, () => {
        const rng = createRng(seed * 1000 + count);
        const { t, slots } = randomTimeline(rng, count);
        for (let q = 0; q < 20; q++) {
          const from = NOW + rng.int(0, 100);
          const to = from + rng.int(1, 60);
          const brute = { cpus: Infinity, memMiB: Infinity, gpus: Infinity };
          for (let x = from; x < to; x++) {
            const f = freeAt(slots, x);
            brute.cpus = Math.min(brute.cpus, f.cpus);
            brute.memMiB = Math.min(brute.memMiB, f.memMiB);
            brute.gpus = Math.min(brute.gpus, f.gpus);
          }
          expect(t.minFree(0, from, to)).toEqual(brute);
        }
        const horizon = NOW + 200;
        for (let q = 0; q < 10; q++) {
          const share = { cpus: rng.int(40, 64), memMiB: rng.int(0, 5000), gpus: rng.int(0, 8) };
          const d = rng.int(1, 30);
          const runs = t.feasibleStarts(0, share, d, NOW, horizon);
          for (let x = NOW; x <= horizon; x++) {
            let ok = true;
            for (let y = x; y < x + d && ok; y++) {
              const f = freeAt(slots, y);
              if (f.cpus < share.cpus || f.memMiB < share.memMiB || f.gpus < share.gpus) ok = false;
            }
            expect(runs.some(([a, b]) => a <= x && x <= b), `start ${x - NOW} for ${JSON.stringify(share)} x ${d}s`).toBe(ok);
          }
        }
      });
    }
  }
});

// Profiles live in one arena that a rebuild appends to and a regrow compacts: nodes changed
// and read in turn (as reservations do during a pass) must each keep reading their own.
describe("timeline profiles rebuilt in turn on several nodes", () => {
  for (let seed = 1; seed <= 4; seed++) {
    it(`seed ${seed}: every node agrees with brute force after each change`, () => {
      const rng = createRng(seed);
      const nodes = 5;
      const t = new Timeline(NOW, 1, Array.from({ length: nodes }, () => CAP));
      const slots: Slot[][] = Array.from({ length: nodes }, () => []);
      for (let step = 0; step < 150; step++) {
        const i = rng.int(0, nodes - 1);
        const start = NOW + rng.int(-5, 80);
        const slot = { start, end: Math.max(start, NOW) + rng.int(1, 50), cpus: rng.int(0, 2), memMiB: rng.int(0, 150), gpus: rng.int(0, 1) };
        slots[i]!.push(slot);
        t.add(i, slot);
        for (let n = 0; n < nodes; n++) {
          const from = NOW + rng.int(0, 100);
          const to = from + rng.int(1, 40);
          const brute = { cpus: Infinity, memMiB: Infinity, gpus: Infinity };
          for (let x = from; x < to; x++) {
            const f = freeAt(slots[n]!, x);
            brute.cpus = Math.min(brute.cpus, f.cpus);
            brute.memMiB = Math.min(brute.memMiB, f.memMiB);
            brute.gpus = Math.min(brute.gpus, f.gpus);
          }
          expect(t.minFree(n, from, to), `node ${n} after step ${step}`).toEqual(brute);
        }
      }
    });
  }
});
