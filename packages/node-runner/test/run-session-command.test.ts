// runSessionCommand: a host command on the Session's own supervisor and sandbox, with real
// processes: output, cwd and env through the environment policy, the deadline (timeout/124),
// bounds with exact droppedBytes, live output, abort and Session close ending the group, no
// permission question and nothing saved, and the Session's sandbox holding it (real bubblewrap).
import { existsSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { defineAgent, hostTool } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import {
  createCommandSessionPlugin,
  createFileSessionStore,
  createNodeRunner,
  type NodeRunnerPlugin,
  runSessionCommand,
  type ToolApprovalRequest,
  type WorkspaceOptions,
  workspace,
} from "../src/index.js";
import {
  approvalPlugin,
  cleanupAfterEach,
  extraTempDirs,
  fileRecords,
  tempDirPerTest,
  writeTree,
} from "./support/index.ts";

const temp = tempDirPerTest("castellan-host-cmd-");
const cleanups = cleanupAfterEach();
const slow = 60_000;

const extraDir = extraTempDirs();

async function workspaceSession(options: Partial<WorkspaceOptions> = {}, plugins: NodeRunnerPlugin[] = []) {
  const root = await realpath(temp.path);
  const agent = defineAgent("test.host-command", {
    model: scriptedModel([]),
    capabilities: [
      workspace({ root: pathToFileURL(`${root}/`), sandbox: "none", commands: { killGraceMs: 200 }, ...options }),
    ],
  });
  const runner = await createNodeRunner({ agent, permissions: "ask-on-write", plugins });
  cleanups.push(() => runner.close());
  return { root, runner, session: cleanups.closeLater(await runner.createSession()) };
}

describe("runSessionCommand", () => {
  it("runs in the Session's root (or a cwd beneath it) with the environment policy and env set over it", async () => {
    await writeTree(temp.path, { "sub/.keep": "" });
    process.env.HOST_ONLY_VARIABLE = "hidden";
    try {
      const { root, session } = await workspaceSession();
      const result = await runSessionCommand(session, {
        // A shell default, not a template: the host-only variable must be absent in the command.
        command: ["pwd", 'echo "extra=$EXTRA host=$' + '{HOST_ONLY_VARIABLE:-none}"', "echo err >&2", "exit 3"].join(
          "; ",
        ),
        cwd: "sub",
        env: { EXTRA: "1" },
        timeoutMs: 10_000,
      });
      expect(result).toMatchObject({
        outcome: "exit",
        exitCode: 3,
        signal: null,
        stdout: `${join(root, "sub")}\nextra=1 host=none\n`,
        stderr: "err\n",
        droppedBytes: { stdout: 0, stderr: 0 },
      });
      expect(result.durationMs).toBeGreaterThanOrEqual(0);
      await expect(
        runSessionCommand(session, { command: "true", env: { OPENAI_API_KEY: "x" }, timeoutMs: 1_000 }),
      ).rejects.toMatchObject({ code: "environment_invalid" });
      await expect(runSessionCommand(session, { command: "true", cwd: "../", timeoutMs: 1_000 })).rejects.toMatchObject(
        {
          code: "path_invalid",
        },
      );
      await expect(runSessionCommand(session, { command: "true" } as never)).rejects.toMatchObject({
        code: "invalid_options",
      });
    } finally {
      delete process.env.HOST_ONLY_VARIABLE;
    }
  });

  it("ends at its deadline with timeout/124, bounds each stream with exact droppedBytes, and streams live output", async () => {
    const { session } = await workspaceSession();
    const timedOut = await runSessionCommand(session, { command: "trap '' TERM; sleep 30", timeoutMs: 200 });
    expect(timedOut).toMatchObject({ outcome: "timeout", exitCode: 124 });
    const chunks: string[] = [];
    const bounded = await runSessionCommand(session, {
      command: "head -c 100000 /dev/zero | tr '\\0' a; echo tail",
      timeoutMs: 10_000,
      maxOutputBytesPerStream: 1_024,
      onOutput: (chunk) => void chunks.push(chunk.text),
    });
    expect(bounded.droppedBytes.stdout).toBe(100_005 - 1_024);
    expect(Buffer.byteLength(bounded.stdout)).toBe(1_024);
    expect(bounded.stdout.endsWith("aaaatail\n")).toBe(true);
    expect(chunks.join("")).toBe(`${"a".repeat(100_000)}tail\n`);
  });

  it("ends its group on abort and on Session close (outcome cleanup)", async () => {
    const { session } = await workspaceSession();
    const controller = new AbortController();
    const aborted = runSessionCommand(session, { command: "sleep 30", timeoutMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect(await aborted).toMatchObject({ outcome: "cleanup" });
    const closing = runSessionCommand(session, { command: "echo $$; exec sleep 30", timeoutMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    await session.close();
    const closed = await closing;
    expect(closed.outcome).toBe("cleanup");
    const pid = Number(closed.stdout.trim());
    expect(() => process.kill(pid, 0)).toThrow();
    await expect(runSessionCommand(session, { command: "true", timeoutMs: 1_000 })).rejects.toMatchObject({
      code: "session_closed",
    });
  });

  it("asks no permission and saves nothing in the Session's history", async () => {
    const store = await extraDir("castellan-host-store-");
    const asked: ToolApprovalRequest[] = [];
    const { session } = await workspaceSession({}, [
      approvalPlugin(async (request) => {
        asked.push(request);
        return { decision: "deny" };
      }),
      { name: "test.store", apply: (host) => host.registerSessionStore(createFileSessionStore({ directory: store })) },
    ]);
    const before = await fileRecords(store, session.id).catch(() => []);
    const result = await runSessionCommand(session, { command: "echo host", timeoutMs: 5_000 });
    expect(result.stdout).toBe("host\n");
    expect(asked).toEqual([]);
    expect(await fileRecords(store, session.id).catch(() => [])).toEqual(before);
  });

  it("runs on a command plugin's runtime too, and refuses a Session without exec_command (command_tools_missing)", async () => {
    const root = await realpath(temp.path);
    const plugin = createCommandSessionPlugin({
      workingDirectory: pathToFileURL(`${root}/`),
      environment: { inherit: "core" },
    });
    const agent = defineAgent("test.host-plugin", {
      model: scriptedModel([]),
      tools: [hostTool("exec_command"), hostTool("command_session")],
    });
    const runner = await createNodeRunner({ agent, plugins: [plugin] });
    cleanups.push(() => runner.close());
    const session = cleanups.closeLater(await runner.createSession());
    expect((await runSessionCommand(session, { command: "pwd", timeoutMs: 5_000 })).stdout).toBe(`${root}\n`);

    const bare = await createNodeRunner({ agent: defineAgent("test.no-commands", { model: scriptedModel([]) }) });
    cleanups.push(() => bare.close());
    const plain = cleanups.closeLater(await bare.createSession());
    await expect(runSessionCommand(plain, { command: "true", timeoutMs: 1_000 })).rejects.toMatchObject({
      code: "command_tools_missing",
    });
  });

  describeNeeding(osSandboxPrograms, "in an OS workspace", () => {
    it(
      "runs in the Session's sandbox worker: writes outside the root are denied",
      async () => {
        const outside = await extraDir("castellan-host-outside-");
        const { session } = await workspaceSession({ sandbox: "os" });
        const result = await runSessionCommand(session, {
          command: `echo in > inside.txt; echo out > ${outside}/escaped.txt`,
          timeoutMs: 20_000,
        });
        expect(result.exitCode).not.toBe(0);
        expect(result.stderr).toContain("<sandbox_violations>");
        expect(existsSync(join(temp.path, "inside.txt"))).toBe(true);
        expect(existsSync(join(outside, "escaped.txt"))).toBe(false);
      },
      slow,
    );
  });
});
