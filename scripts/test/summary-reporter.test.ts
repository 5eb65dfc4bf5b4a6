// The closing line as CI reads it: vitest itself runs each fixture under fixtures/ (kept out of the main
// run) in a child process with only the summary reporter, and the line must agree with the exit code.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
const vitest = fileURLToPath(new URL("../../node_modules/vitest/vitest.mjs", import.meta.url));

/** Runs vitest on one fixture file and returns its exit code and closing line. */
function runFixture(
  file: string,
  config = "vitest.config.ts",
): Promise<{ code: number | null; line: string | undefined; output: string }> {
  // The child is a run of its own, not a worker of this one.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST")));
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [vitest, "run", "--configLoader", "runner", "--config", config, file],
      { cwd: fixtures, env, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") return reject(error);
        const line = stdout.split("\n").find((text) => text.startsWith("tests: "));
        resolve({ code: child.exitCode, line, output: `${stdout}${stderr}` });
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
    expect({ code: run.code, line: run.line }).toEqual({ code, line });
  });
});

// One at a time: each run's check sees (and kills) every orphaned sandbox process on the machine.
describe.sequential("the end-of-run check for sandbox processes left behind", () => {
  it("counts a sandbox process the run left behind as a failure, naming it, and exits 1", async () => {
    const run = await runFixture("leaves-a-sandbox-process.test.ts", "vitest.leftovers.config.ts");
    expect({ code: run.code, line: run.line }).toEqual({ code: 1, line: "tests: 1 passed, 1 failed, 0 skipped" });
    expect(run.output).toMatch(/left \d+ sandbox process(es)? behind/);
    expect(run.output).toMatch(/ {2}pid \d+ \(socat\), parent 1: \S+castellan-leftover-fixture-\w+\/socat 600/);
  });

  it("fails the run from the globalSetup's teardown alone when no summary reporter runs", async () => {
    const run = await runFixture("leaves-a-sandbox-process.test.ts", "vitest.leftovers-teardown.config.ts");
    expect(run.code).toBe(1);
    expect(run.output).toMatch(/ {2}pid \d+ \(socat\), parent 1: \S+castellan-leftover-fixture-\w+\/socat 600/);
  });
});
