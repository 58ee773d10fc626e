import { readFileSync } from "node:fs";
import { defineConfig, type Plugin } from "vitest/config";

/**
 * The web page's files (src/net/rest/ui/assets/) are imported `with { type: "text" }`, which
 * Bun's bundler and runtime understand; vite does not, and would run page.css through its CSS
 * pipeline and page.js as a module. This plugin gives every file there as a string instead.
 */
const TEXT_ASSETS = /\/src\/net\/rest\/ui\/assets\/[^/]+\.(html|css|js)$/;
const TEXT_PREFIX = "\0spur-text:";
function textAssets(): Plugin {
  return {
    name: "spur-text-assets",
    enforce: "pre",
    async resolveId(source, importer, options) {
      if (importer === undefined || !/\.(html|css|js)$/.test(source)) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      // a suffix no other plugin claims, so vite:css leaves it alone
      return resolved !== null && TEXT_ASSETS.test(resolved.id) ? `${TEXT_PREFIX}${resolved.id}.text` : null;
    },
    load(id) {
      if (!id.startsWith(TEXT_PREFIX)) return null;
      return `export default ${JSON.stringify(readFileSync(id.slice(TEXT_PREFIX.length, -".text".length), "utf8"))};`;
    },
  };
}

// Four projects: unit tests are pure and fast; sim runs the seeded controller
// simulation (tests/sim/controller, a budget of ~20 s in CI); e2e tests start the compiled
// binary's roles as processes on loopback (their global setup builds dist/spur);
// conformance runs the same scenarios on real Slurm (../shared/oracle) and Spur;
// differential runs generated cases (seeded) on both (tests/differential, docs/differential.md);
// real-scripts runs public batch scripts and client command lines on both (tests/real-scripts, docs/real-scripts.md).
// Projects do not inherit the root's plugins: each names the text-asset plugin.
export default defineConfig({
  test: {
    projects: [
      { plugins: [textAssets()], test: { name: "unit", include: ["tests/unit/**/*.test.ts"], testTimeout: 30_000 } },
      { plugins: [textAssets()], test: { name: "sim", include: ["tests/sim/**/*.test.ts"], testTimeout: 120_000 } },
      {
        plugins: [textAssets()],
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
        plugins: [textAssets()],
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
        plugins: [textAssets()],
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
        plugins: [textAssets()],
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
