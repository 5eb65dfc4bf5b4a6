import type { Reporter, SerializedError, TestModule, TestRunEndReason } from "vitest/node";

/** The counts of the closing line. */
export interface TestCounts {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

/**
 * Counts a finished run. Each test counts by its own state. A test module or suite with errors of its own
 * (it failed to load, or a beforeAll/afterAll hook threw) counts as one failure more, whatever its tests'
 * states: the tests of a suite whose beforeAll threw are reported skipped, and would otherwise hide it.
 * Each unhandled error counts as one failure, and a run that did not end `passed` counts at least one.
 */
export function countTests(
  testModules: ReadonlyArray<TestModule>,
  unhandledErrors: ReadonlyArray<SerializedError>,
  reason: TestRunEndReason,
): TestCounts {
  let passed = 0;
  let failed = unhandledErrors.length;
  let skipped = 0;
  for (const module of testModules) {
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === "passed") passed++;
      else if (state === "failed") failed++;
      else skipped++;
    }
    for (const suite of [module, ...module.children.allSuites()]) {
      if (suite.errors().length > 0) failed++;
    }
  }
  // The run failed for a reason none of the counts above shows: the line must not say 0 failed.
  if (reason !== "passed" && failed === 0) failed = 1;
  return { passed, failed, skipped };
}

/** Ends the run with one plain line, `tests: N passed, N failed, N skipped`, that any CI can read. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    reason: TestRunEndReason,
  ): void {
    const { passed, failed, skipped } = countTests(testModules, unhandledErrors, reason);
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
