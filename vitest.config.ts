import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "packages/*/test/**/*.test.ts",
      "examples/**/*.test.ts",
      "bench/**/*.test.ts",
    ],
    exclude: ["**/node_modules/**", "**/dist/**"],
    reporters: ["default", "./scripts/summary-reporter.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
