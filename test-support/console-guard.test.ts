// The output guard, proven on fixture test files run by a vitest of their own in a child
// process (its output goes to pipes read here), with the guard as its only setup file.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const workspaceRoot = fileURLToPath(new URL("../", import.meta.url));
const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));

interface FileReport {
  readonly name: string;
  readonly status: "passed" | "failed";
  readonly message: string;
  readonly assertionResults: readonly { title: string; status: string; failureMessages: string[] }[];
}

let work: string;
let files: FileReport[];
let childOutput: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "castellan-console-guard-"));
  const reportPath = join(work, "report.json");
  // The child is a vitest of its own, not a worker of this one.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST")));
  const vitest = join(workspaceRoot, "node_modules", "vitest", "vitest.mjs");
  // The default reporter shows whatever reached vitest's console; the JSON one is read below.
  const reporters = ["--reporter=default", "--reporter=json", `--outputFile.json=${reportPath}`];
  const args = [vitest, "run", "--config", join(fixtures, "vitest.config.ts"), ...reporters];
  const result = await promisify(execFile)(process.execPath, args, {
    cwd: workspaceRoot,
    env: { ...env, NO_COLOR: "1" },
  }).catch((error: { code?: number; stdout?: string; stderr?: string }) => {
    // Some fixtures fail on purpose, so the run exits with 1; anything else is a broken run.
    if (error.code !== 1) throw error;
    return { stdout: error.stdout ?? "", stderr: error.stderr ?? "" };
  });
  childOutput = `${result.stdout}${result.stderr}`;
  files = (JSON.parse(await readFile(reportPath, "utf8")) as { testResults: FileReport[] }).testResults;
}, 60_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

function fileReport(name: string): FileReport {
  const report = files.find((file) => file.name === join(fixtures, name));
  if (!report) throw new Error(`no report for ${name}: ${files.map((file) => file.name).join(", ")}`);
  return report;
}

function testReport(file: string, title: string) {
  const report = fileReport(file).assertionResults.find((test) => test.title === title);
  if (!report) throw new Error(`no test "${title}" in ${file}`);
  return report;
}

/** `path:line:` of the first line of a fixture that contains `text`, as the guard names places. */
async function placeOf(file: string, text: string): Promise<string> {
  const lines = (await readFile(join(fixtures, file), "utf8")).split("\n");
  const index = lines.findIndex((line) => line.includes(text));
  expect(index, `${text} in ${file}`).toBeGreaterThanOrEqual(0);
  return `test-support/fixtures/${file}:${index + 1}:`;
}

describe("the output guard", () => {
  it("fails a test that logs a stray line, naming console.log, where it was called and what it wrote", async () => {
    const test = testReport("stray.fixture.ts", "logs a stray line");
    expect(test.status).toBe("failed");
    expect(test.failureMessages).toHaveLength(1);
    const message = test.failureMessages[0] ?? "";
    expect(message).toContain("This test wrote to the console, stdout or stderr without calling expectOutput()");
    expect(message).toContain(`console.log at ${await placeOf("stray.fixture.ts", 'console.log("a stray line')}`);
    expect(message).toContain("    | a stray line from console.log");
  });

  it("fails a test whose code writes to process.stderr, naming the line that wrote", async () => {
    const test = testReport("stray.fixture.ts", "writes to stderr through a helper");
    expect(test.status).toBe("failed");
    const message = test.failureMessages[0] ?? "";
    expect(message).toContain(
      `process.stderr.write at ${await placeOf("stray.fixture.ts", 'process.stderr.write("raw bytes')}`,
    );
    expect(message).toContain("    | raw bytes from a helper");
  });

  it("passes a test that writes nothing, with vitest's own work around it", () => {
    expect(testReport("stray.fixture.ts", "writes nothing")).toMatchObject({ status: "passed", failureMessages: [] });
    expect(testReport("outside.fixture.ts", "writes nothing itself")).toMatchObject({ status: "passed" });
  });

  it("lets a test that calls expectOutput() pass and read back what it wrote, without showing it", () => {
    // The fixture asserts on stdout, stderr, the text in order and each write's channel and place.
    expect(testReport("expected.fixture.ts", "reads back the output it declared")).toMatchObject({
      status: "passed",
      failureMessages: [],
    });
    expect(fileReport("expected.fixture.ts").status).toBe("passed");
    expect(childOutput).not.toContain("an expected error line");
    expect(childOutput).not.toContain("expected bytes");
  });

  it("fails a test that calls expectOutput() and writes nothing", () => {
    const test = testReport("stray.fixture.ts", "declares output and writes none");
    expect(test.status).toBe("failed");
    expect(test.failureMessages).toEqual([
      "UnexpectedOutputError: This test called expectOutput() but wrote nothing to the console, stdout or stderr.",
    ]);
  });

  it("fails the file when something writes outside any test", async () => {
    const file = fileReport("outside.fixture.ts");
    expect(file.status).toBe("failed");
    expect(file.message).toContain("This file wrote to the console, stdout or stderr outside any test");
    expect(file.message).toContain(`console.warn at ${await placeOf("outside.fixture.ts", "console.warn(")}`);
    expect(file.message).toContain("    | a warning from beforeAll");
  });
});
