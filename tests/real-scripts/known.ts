/**
 * @module tests/real-scripts/known
 * Differences between real Slurm 22.05 and Spur on the real-scripts corpus that are
 * accepted, each with its reason (as tests/differential/known.ts): an entry names the
 * field(s) it covers and, optionally, the cases (file name or command text) and a
 * condition on the values. Anything else is a new difference and fails the project.
 */
import type { FieldDiff } from "../differential/compare.ts";

export interface KnownReal {
  field: RegExp;
  /** Script file name or command text it applies to (all cases when absent). */
  cases?: RegExp;
  when?: (d: FieldDiff) => boolean;
  reason: string;
}

export const KNOWN_REAL: readonly KnownReal[] = [];

export function knownReal(caseKey: string, d: FieldDiff): KnownReal | undefined {
  return KNOWN_REAL.find((k) => k.field.test(d.field) && (k.cases === undefined || k.cases.test(caseKey)) && (k.when === undefined || k.when(d)));
}
