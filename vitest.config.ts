import { defineConfig } from "vitest/config";

// Unit tests are pure and fast; e2e tests start the compiled binary's roles as
// processes on loopback (global-setup builds dist/spur first).
export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: false,
    globalSetup: ["tests/e2e/global-setup.ts"],
  },
});
