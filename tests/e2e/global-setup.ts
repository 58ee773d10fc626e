/**
 * @module tests/e2e/global-setup
 * Builds dist/spur once before the end-to-end tests (they run the real binary).
 */
import { spawnSync } from "node:child_process";

export default function setup(): void {
  const r = spawnSync(process.execPath, ["scripts/build-binary.ts"], { stdio: "inherit" });
  if (r.status !== 0) throw new Error("building dist/spur failed");
}
