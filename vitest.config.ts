import { defineConfig } from "vitest/config";

// Two projects: unit tests are pure and fast; e2e tests start the compiled
// binary's roles as processes on loopback (their global setup builds dist/spur).
export default defineConfig({
  test: {
    projects: [
      { test: { name: "unit", include: ["tests/unit/**/*.test.ts"], testTimeout: 30_000 } },
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
    ],
  },
});
