// The closing line as CI reads it: vitest itself runs each fixture under fixtures/ (kept out of the main
// run) in a child process with only the summary reporter, and the line must agree with the exit code.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
const vitest = fileURLToPath(new URL("../../node_modules/vitest/vitest.mjs", import.meta.url));

/** Runs vitest on one fixture file and returns its exit code and closing line. */
function runFixture(file: string): Promise<{ code: number | null; line: string | undefined }> {
  // The child is a run of its own, not a worker of this one.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST")));
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [vitest, "run", "--configLoader", "runner", "--config", "vitest.config.ts", file],
      { cwd: fixtures, env, timeout: 60_000 },
      (error, stdout) => {
        if (error && typeof error.code !== "number") return reject(error);
        resolve({ code: child.exitCode, line: stdout.split("\n").find((text) => text.startsWith("tests: ")) });
      },
    );
  });
}

describe.concurrent("the summary reporter's closing line", () => {
  it.each([
    ["module-before-all-throws.test.ts", "tests: 0 passed, 1 failed, 2 skipped", 1],
    ["suite-before-all-throws.test.ts", "tests: 1 passed, 1 failed, 1 skipped", 1],
    ["import-fails.test.ts", "tests: 0 passed, 1 failed, 0 skipped", 1],
    ["after-all-throws.test.ts", "tests: 1 passed, 1 failed, 0 skipped", 1],
    ["test-fails.test.ts", "tests: 1 passed, 1 failed, 0 skipped", 1],
    ["unhandled-rejection.test.ts", "tests: 1 passed, 1 failed, 0 skipped", 1],
    ["all-pass.test.ts", "tests: 2 passed, 0 failed, 1 skipped", 0],
    [
      "skipped-for-programs.test.ts",
      "tests: 1 passed, 0 failed, 5 skipped (chromium missing: apt-get install -y chromium; bubblewrap, socat missing: apt-get install -y bubblewrap socat)",
      0,
    ],
  ])("%s ends with %s and exit code %i", async (file, line, code) => {
    const run = await runFixture(file);
    expect(run).toEqual({ code, line });
  });
});
