// 2 GB through exec_command, sandboxed (an OS workspace on real bubblewrap) and unsandboxed:
// the host keeps only the bound per stream, so its RSS stays within 100 MB of where it
// started, and the report's droppedBytes is exact. Kept out of `npm test` (npm run test:heavy).
import { realpath } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { defineAgent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { itNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import type { CommandSessionReport } from "../src/capabilities/commands/session/index.js";
import { createNodeRunner, workspace } from "../src/index.js";
import { drain, tempDirPerTest, textOf } from "../test/support/index.ts";

const temp = tempDirPerTest("castellan-heavy-");
const twoGiB = 2 ** 31;
const bound = 65_536;
const rssLimit = 100 * 1024 * 1024;
const warmUpBytes = 256 * 1024 * 1024;

// A full collection before the baseline, so garbage of the warm-up is not counted against it.
v8.setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

async function printTwoGiB(sandbox: "os" | "none") {
  const root = await realpath(temp.path);
  const model = scriptedModel([
    // A warm-up Run first, so the baseline already holds what the first Run loads (code, pools).
    { toolCalls: [{ name: "exec_command", input: { command: `head -c ${warmUpBytes} /dev/zero` } }] },
    { text: "warm" },
    { toolCalls: [{ name: "exec_command", input: { command: `head -c ${twoGiB} /dev/zero` } }] },
    { text: "done" },
  ]);
  const agent = defineAgent("test.heavy", {
    model,
    capabilities: [
      workspace({
        root: pathToFileURL(`${root}/`),
        sandbox,
        commands: { executionTimeoutMs: 200_000, initialYieldMs: 200_000 },
      }),
    ],
  });
  const runner = await createNodeRunner({ agent, permissions: "full-access" });
  try {
    const session = await runner.createSession();
    await session.run("warm up").result;
    collectGarbage();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 25);
    let report: CommandSessionReport | undefined;
    try {
      const { events, error } = await drain(session.run("print"));
      expect(error).toBeUndefined();
      const end = events.find((event) => event.kind === "tool-end");
      report = end?.kind === "tool-end" ? (JSON.parse(textOf(end.result)) as CommandSessionReport) : undefined;
    } finally {
      clearInterval(sampler);
      await session.close();
    }
    return { report, growth: peak - baseline };
  } finally {
    await runner.close();
  }
}

describe("2 GB of command output", () => {
  it("unsandboxed: bounded host memory and exact droppedBytes", async () => {
    const { report, growth } = await printTwoGiB("none");
    expect(report).toMatchObject({ state: "terminal", outcome: "exit", exitCode: 0 });
    expect(report?.stdout.bytes).toBe(twoGiB);
    expect(report?.stdout.droppedBytes).toBe(twoGiB - bound);
    expect(growth).toBeLessThan(rssLimit);
  });

  itNeeding(osSandboxPrograms, "sandboxed: bounded host memory and exact droppedBytes", async () => {
    const { report, growth } = await printTwoGiB("os");
    expect(report).toMatchObject({ state: "terminal", outcome: "exit", exitCode: 0 });
    expect(report?.stdout.bytes).toBe(twoGiB);
    expect(report?.stdout.droppedBytes).toBe(twoGiB - bound);
    expect(growth).toBeLessThan(rssLimit);
  });
});
