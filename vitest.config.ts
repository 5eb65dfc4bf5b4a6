import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "packages/*/test/**/*.test.ts",
      "examples/**/*.test.ts",
      "bench/**/*.test.ts",
      "test-support/**/*.test.ts",
      "scripts/test/*.test.ts",
      "architecture/*.test.ts",
    ],
    // scripts/test/fixtures/ holds test files meant to fail; the reporter's test runs them in a vitest of their own.
    exclude: ["**/node_modules/**", "**/dist/**", "scripts/test/fixtures/**"],
    // Fails a test that writes to the console, stdout or stderr without calling expectOutput().
    setupFiles: ["./test-support/console-guard.ts"],
    // Fails the run when a bubblewrap or socat it started outlived it (test-support/sandbox-leftovers.ts).
    globalSetup: ["./test-support/sandbox-leftovers-setup.ts"],
    reporters: ["default", "./scripts/summary-reporter.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
