// The coding example as a consumer gets it: packed packages and the pinned server-filesystem
// installed into a project outside the workspace, every entry typechecked there, and the
// deterministic flow run as two OS processes against the real docs server: what the log holds,
// what stdout shows, what the second process answers, and that no server outlives a process.
// `--deny` leaves the project as it was; with the OS sandbox the flow runs once more in
// bubblewrap.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { itNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { exec, type PackedConsumer } from "../../test-support/pack.ts";
import { createExampleConsumer, type Logged, resultText, sampleCopy, sessionRecords } from "./consumer.ts";

let packed: PackedConsumer;
beforeAll(async () => {
  packed = await createExampleConsumer();
}, 300_000);

afterAll(async () => {
  if (packed) await packed.remove();
});

async function runExample(workspace: string, flags: readonly string[], prompt: string) {
  return await exec(process.execPath, ["run.ts", "--workspace", workspace, ...flags, prompt], {
    cwd: packed.directory,
    timeout: 120_000,
    maxBuffer: 8 * 1024 * 1024,
  });
}

/** The example's saved Session in a project's default history directory. */
const records = (workspace: string) => sessionRecords(join(workspace, ".castellan-sessions"));

/** The server-filesystem processes started from this consumer that are still alive. */
async function liveDocsServers(): Promise<string[]> {
  const { stdout } = await exec("ps", ["-eo", "pid,args"]);
  const entry = join(packed.directory, "node_modules", "@modelcontextprotocol", "server-filesystem");
  return stdout.split("\n").filter((line) => line.includes(entry));
}

/** sha256 of every file under `directory`, by relative path, leaving out the saved Sessions. */
async function hashes(directory: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const name = relative(directory, path);
    if (name.startsWith(".castellan-sessions")) continue;
    found[name] = createHash("sha256")
      .update(await readFile(path))
      .digest("hex");
  }
  return found;
}

async function checkFlow(sandboxFlag: "none" | "os") {
  const project = await sampleCopy();
  try {
    const first = await runExample(
      project.directory,
      ["--approve", "--sandbox", sandboxFlag],
      "Fix the bug described in docs/ISSUE.md.",
    );
    const second = await runExample(project.directory, ["--approve", "--sandbox", sandboxFlag], "What did you change?");
    // The fix holds: the project's own tests pass now.
    await exec("npm", ["test"], { cwd: project.directory });

    const log = await records(project.directory);
    const ends = log.filter((record) => record.kind === "tool-end");
    const position = (predicate: (record: Logged) => boolean) => ends.findIndex(predicate);
    const mcp = position((record) => record.toolName === "mcp__docs__read_text_file");
    const patch = position((record) => record.toolName === "apply_workspace_patch");
    const denial = position(
      (record) =>
        record.toolName === "exec_command" &&
        resultText(record).includes("this example only runs the project's tests") &&
        (record.input as { command?: string }).command === "npm install",
    );
    const tests = position((record) => {
      if (record.toolName !== "exec_command") return false;
      const report = JSON.parse(resultText(record).startsWith("{") ? resultText(record) : "{}");
      return (record.input as { command?: string }).command === "npm test" && report.exitCode === 0;
    });
    const review = position((record) => record.toolName === "agent_example_reviewer");
    expect([mcp, patch, denial, tests, review].every((index) => index >= 0)).toBe(true);
    expect([mcp, patch, denial, tests, review]).toEqual([...[mcp, patch, denial, tests, review]].sort((a, b) => a - b));
    expect(resultText(ends[mcp] as Logged)).toContain("Cart totals are too low");
    const report = JSON.parse(resultText(ends[review] as Logged));
    expect(report).toMatchObject({ type: "child-agent-report", status: "completed" });
    expect(report.text).toMatch(/^APPROVE/);
    expect(
      existsSync(join(project.directory, ".castellan-sessions", `${encodeURIComponent(report.childSessionId)}.jsonl`)),
    ).toBe(true);
    // The skill activation is saved state, and the conversation was compacted on the way.
    expect(JSON.stringify(log)).toContain('"castellan.skills.active"');
    expect(log.filter((record) => record.kind === "compaction").length).toBeGreaterThanOrEqual(1);

    // Each approval is printed before the call it approved ran.
    const out = first.stdout;
    expect(out.indexOf("approval: apply_workspace_patch")).toBeGreaterThan(-1);
    expect(out.indexOf("approval: apply_workspace_patch")).toBeLessThan(out.indexOf("patch applied"));
    expect(out.indexOf('approval: exec_command {"command":"npm test"}')).toBeGreaterThan(-1);
    expect(out.indexOf('approval: exec_command {"command":"npm test"}')).toBeLessThan(out.indexOf("exit 0: npm test"));
    expect(out).toContain("denied by hook: this example only runs the project's tests");
    expect(out).toMatch(/files changed: src\/cart\.js\n/);
    expect(out).toMatch(/reviewer: APPROVE\n/);
    expect(out).toMatch(/skills used: change-report\n/);

    // The second process ran no tool: it answered from the saved history, naming the file.
    const runStarts = log.flatMap((record, index) => (record.kind === "run-start" ? [index] : []));
    expect(runStarts).toHaveLength(2);
    expect(log.slice(runStarts[1]).some((record) => record.kind === "tool-start")).toBe(false);
    expect(second.stdout).not.toContain("-> ");
    expect(second.stdout).toContain("I changed src/cart.js");
    expect(second.stdout).toContain("exited 0");
    expect(await liveDocsServers()).toEqual([]);
  } finally {
    await project.remove();
  }
}

describe("the packed local coding agent example", () => {
  it("typechecks every entry against the packed packages", async () => {
    const read = await packed.typecheck();
    expect(read.entries).toEqual(
      ["agent.ts", "mock-model.ts", "openai-agent.ts", "openai.ts", "run.ts"].filter((name) =>
        existsSync(join(packed.directory, name)),
      ),
    );
    expect(read.entries).toEqual(expect.arrayContaining(["agent.ts", "mock-model.ts", "run.ts"]));
    // Only openai.ts binds a provider: the mock composition reads no @castellan/models declaration.
    expect(read.packages).toEqual(
      existsSync(join(packed.directory, "openai.ts"))
        ? ["harness", "models", "node-runner"]
        : ["harness", "node-runner"],
    );
    expect(read.workspaceFiles).toEqual([]);
  });

  it("fixes, tests, reviews and reports the bug in one process, and answers from history in the next", async () => {
    await checkFlow("none");
  }, 240_000);

  it("--deny leaves the project byte for byte as it was, and the report says the edit was refused", async () => {
    const project = await sampleCopy();
    try {
      const before = await hashes(project.directory);
      const { stdout } = await runExample(
        project.directory,
        ["--deny", "--sandbox", "none"],
        "Fix the bug described in docs/ISSUE.md.",
      );
      expect(await hashes(project.directory)).toEqual(before);
      expect(stdout).toContain("approval: apply_workspace_patch");
      expect(stdout).toContain("-> deny");
      expect(stdout).toMatch(/\*\*Refused:\*\* apply_workspace_patch: Permission denied/);
      expect(stdout).toMatch(/files changed: none\n/);
      expect(await liveDocsServers()).toEqual([]);
    } finally {
      await project.remove();
    }
  }, 120_000);

  itNeeding(
    osSandboxPrograms,
    "runs the same flow with commands in bubblewrap",
    async () => {
      await checkFlow("os");
    },
    240_000,
  );
});
