import { defineConfig } from "vitest/config";

// Unit tests are pure and fast; e2e tests start the compiled binary's roles as
// processes on loopback (they build dist/spur first if it is missing or stale).
export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: false,
  },
});
