import { defineConfig } from "vitest/config";

// Four projects: unit tests are pure and fast; sim runs the seeded controller
// simulation (tests/sim/controller, a budget of ~20 s in CI); e2e tests start the compiled
// binary's roles as processes on loopback (their global setup builds dist/spur);
// conformance runs the same scenarios on real Slurm (../shared/oracle) and Spur;
// differential runs generated cases (seeded) on both (tests/differential, docs/differential.md);
// real-scripts runs public batch scripts and client command lines on both (tests/real-scripts, docs/real-scripts.md).
export default defineConfig({
  test: {
    projects: [
      { test: { name: "unit", include: ["tests/unit/**/*.test.ts"], testTimeout: 30_000 } },
      { test: { name: "sim", include: ["tests/sim/**/*.test.ts"], testTimeout: 120_000 } },
      {
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: "forks",
          fileParallelism: false,
          globalSetup: ["tests/e2e/global-setup.ts"],
        },
      },
      {
        test: {
          name: "conformance",
          include: ["tests/conformance/**/*.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          pool: "forks",
          fileParallelism: false,
          globalSetup: ["tests/e2e/global-setup.ts"],
        },
      },
      {
        test: {
          name: "differential",
          include: ["tests/differential/**/*.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 1_200_000,
          pool: "forks",
          fileParallelism: false,
          globalSetup: ["tests/e2e/global-setup.ts"],
        },
      },
      {
        test: {
          name: "real-scripts",
          include: ["tests/real-scripts/**/*.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 900_000,
          pool: "forks",
          fileParallelism: false,
          globalSetup: ["tests/e2e/global-setup.ts"],
        },
      },
    ],
  },
});
