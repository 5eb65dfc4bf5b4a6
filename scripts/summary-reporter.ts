import type { Reporter, SerializedError, TestModule, TestRunEndReason } from "vitest/node";
import { leftoverReport, runLeftoverCheck } from "../test-support/sandbox-leftovers.ts";

/** The counts of the closing line. */
export interface TestCounts {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  /**
   * Why groups of the skipped tests were skipped, each reason once in the order first met: the
   * `meta.skippedFor` that test-support/system-programs.ts sets (`chromium missing: apt-get
   * install -y chromium`). Tests skipped for any other reason add none.
   */
  readonly skippedFor: readonly string[];
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
  const skippedFor = new Set<string>();
  for (const module of testModules) {
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === "passed") passed++;
      else if (state === "failed") failed++;
      else {
        skipped++;
        const reason = test.meta().skippedFor;
        if (typeof reason === "string" && reason !== "") skippedFor.add(reason);
      }
    }
    for (const suite of [module, ...module.children.allSuites()]) {
      if (suite.errors().length > 0) failed++;
    }
  }
  // The run failed for a reason none of the counts above shows: the line must not say 0 failed.
  if (reason !== "passed" && failed === 0) failed = 1;
  return { passed, failed, skipped, skippedFor: [...skippedFor] };
}

/**
 * The closing line: `tests: N passed, N failed, N skipped`, then, when some tests were skipped
 * for a missing program, each reason in parentheses (`; ` between two).
 */
export function closingLine(counts: TestCounts): string {
  const line = `tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
  return counts.skippedFor.length === 0 ? line : `${line} (${counts.skippedFor.join("; ")})`;
}

/**
 * Ends the run with one plain line that any CI can read, `tests: N passed, N failed, N skipped`,
 * followed by what to install when suites were skipped for a missing program (which under CI
 * fails instead, so CI's line stays plain). When the run's globalSetup registered the end-of-run
 * check (test-support/sandbox-leftovers.ts), a sandbox process the run left behind is named
 * above the line, counted as one failure more, and sets exit code 1.
 */
export default class SummaryReporter implements Reporter {
  async onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    reason: TestRunEndReason,
  ): Promise<void> {
    const counts = countTests(testModules, unhandledErrors, reason);
    // A sandbox process the run left behind (test-support/sandbox-leftovers.ts) is one failure more.
    const check = runLeftoverCheck();
    const left = check ? await check.run() : [];
    if (check && left.length > 0) {
      check.reported = true;
      process.exitCode = 1;
      process.stdout.write(`\n${leftoverReport(left)}\n`);
    }
    const failed = counts.failed + (left.length > 0 ? 1 : 0);
    process.stdout.write(`\n${closingLine({ ...counts, failed })}\n`);
  }
}
