import { defineConfig } from "vitest/config";

// `npm run test:heavy`: the long runs kept out of `npm test` (each a few minutes of real work on
// 2 cores). `.ci/run` runs them after `npm test`, time-boxed.
export default defineConfig({
  test: {
    include: ["packages/*/heavy/**/*.heavy.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    setupFiles: ["./test-support/console-guard.ts"],
    // Fails the run when a bubblewrap or socat it started outlived it (test-support/sandbox-leftovers.ts).
    globalSetup: ["./test-support/sandbox-leftovers-setup.ts"],
    reporters: ["default", "./scripts/summary-reporter.ts"],
    testTimeout: 240_000,
    hookTimeout: 60_000,
    // One file at a time: the RSS bound is measured in the worker that runs the commands.
    fileParallelism: false,
  },
});
