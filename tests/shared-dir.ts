/**
 * Where ../shared (the Slurm fact tables and oracle goldens) is: beside the
 * repository checkout, as on developer machines and in CI; SPUR_SHARED_DIR
 * overrides it.
 */
import { resolve } from "node:path";

export const SHARED_DIR = process.env.SPUR_SHARED_DIR ?? resolve(__dirname, "../../shared");
export const GOLDEN_DIR_PATH = resolve(SHARED_DIR, "oracle/golden");
export const SURFACE_DIR_PATH = resolve(SHARED_DIR, "slurm-surface");
