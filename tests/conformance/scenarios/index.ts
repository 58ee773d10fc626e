/**
 * @module tests/conformance/scenarios/index
 * All scenario groups in run order: the golden re-runs first (their accounting
 * group counts every job before it), then the extra coverage.
 */
import type { Group } from "../scenario.ts";
import { arrays, dependencyKinds } from "./extra-arrays-deps.ts";
import { environment, filenames } from "./extra-env.ts";
import { badInput } from "./extra-errors.ts";
import { formats } from "./extra-formats.ts";
import { directives, options } from "./extra-sbatch.ts";
import { accounting } from "./golden-accounting.ts";
import { busyCluster, scancel } from "./golden-busy.ts";
import { dependencies, errors } from "./golden-errors.ts";
import { idle, sbatchBasics, srun } from "./golden-idle.ts";
import { sreportReports } from "./extra-sreport.ts";
import { severalPartitions } from "./extra-partitions.ts";

export const GOLDEN_GROUPS: Group[] = [idle, srun, sbatchBasics, busyCluster, scancel, dependencies, errors, accounting];
export const EXTRA_GROUPS: Group[] = [directives, options, environment, filenames, formats, badInput, arrays, dependencyKinds, sreportReports, severalPartitions];
export const GROUPS: Group[] = [...GOLDEN_GROUPS, ...EXTRA_GROUPS];
