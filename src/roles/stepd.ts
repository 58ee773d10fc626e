/**
 * @module roles/stepd
 * `spur stepd JOBDIR`: the per-job supervisor spurd starts (see agent/stepd.ts).
 */
import { runStepd } from "../agent/stepd.ts";

export async function main(argv: string[]): Promise<number> {
  const dir = argv[0];
  if (!dir) {
    process.stderr.write("usage: spur stepd JOBDIR\n");
    return 1;
  }
  return runStepd(dir);
}
