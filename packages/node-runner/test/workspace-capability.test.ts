// workspace() through a real Runner, without the OS sandbox: the tool sets of readOnly and
// sandbox "none", a derived root per Session, the built-in section and its override, AGENTS.md
// per Run (never through a command's paths), command handles owned per Session and polled
// without a second approval, and publication that succeeds only on a verified reference
// (a real push to a local bare repository, checked with git ls-remote).
import { execFile } from "node:child_process";
import { mkdir, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { buildProgram, defineAgent, type JsonObject, type ModelRequest, type RunEvent } from "@castellan/harness";
import { type ScriptedStep, type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import type { CommandSessionReport } from "../src/capabilities/commands/session/index.js";
import {
  createNodeRunner,
  type NodeRunnerOptions,
  type ToolApprovalRequest,
  type WorkspaceOptions,
  type WorkspacePublisher,
  workspace,
} from "../src/index.js";
import {
  approvalPlugin,
  cleanupAfterEach,
  drain,
  extraTempDirs,
  tempDirPerTest,
  textOf,
  writeTree,
} from "./support/index.ts";

const run = promisify(execFile);
const temp = tempDirPerTest("castellan-workspace-cap-");
const cleanups = cleanupAfterEach();
const fast = { initialYieldMs: 5_000, executionTimeoutMs: 20_000, killGraceMs: 200, pollWaitMs: 50 } as const;
const call = (name: string, input: JsonObject): ScriptedStep => ({ toolCalls: [{ name, input }] });

const extraDir = extraTempDirs();

function toolEnds(events: readonly RunEvent[]) {
  return events.flatMap((event) =>
    event.kind === "tool-end" ? [{ isError: event.result.isError, text: textOf(event.result) }] : [],
  );
}

async function setup(
  steps: readonly ScriptedStepSource[],
  options: Partial<WorkspaceOptions> & { runner?: Partial<NodeRunnerOptions>; asked?: ToolApprovalRequest[] } = {},
) {
  const root = await realpath(temp.path);
  const { runner: runnerOptions, asked, ...workspaceOptions } = options;
  const capability = workspace({
    root: pathToFileURL(`${root}/`),
    sandbox: "none",
    commands: fast,
    ...workspaceOptions,
  });
  const model = scriptedModel([...steps, { text: "done" }]);
  const agent = defineAgent("test.workspace-cap", { model, capabilities: [capability] });
  const runner = await createNodeRunner({
    agent,
    permissions: asked ? "ask-on-write" : "full-access",
    plugins: asked
      ? [
          approvalPlugin(async (request) => {
            asked.push(request);
            return { decision: "allow" };
          }),
        ]
      : [],
    ...runnerOptions,
  });
  cleanups.push(() => runner.close());
  return { root, capability, model, runner, agent };
}

const systemOf = (request: ModelRequest | undefined) => request?.system ?? "";

describe("workspace()", () => {
  it("readOnly gives exactly list, search, read and image, with no Sandbox and no commands", async () => {
    const root = await realpath(temp.path);
    const agent = defineAgent("test.read-only", {
      model: scriptedModel([{ text: "ok" }]),
      capabilities: [workspace({ root: pathToFileURL(`${root}/`), readOnly: true })],
    });
    const program = buildProgram(agent);
    expect(program.tools.map((tool) => tool.name)).toEqual([
      "list_workspace",
      "search_workspace",
      "read_workspace_file",
      "read_workspace_image",
    ]);
    expect(program.sandbox).toBeUndefined();
  });

  it('sandbox "none" gives the file, image and command tools and runs commands uncontained in the root', async () => {
    await writeTree(temp.path, { "notes.txt": "hello\n" });
    const s = await setup([call("exec_command", { command: "pwd; cat notes.txt; echo made > made.txt" })]);
    expect(buildProgram(s.agent).tools.map((tool) => tool.name)).toEqual([
      "list_workspace",
      "search_workspace",
      "read_workspace_file",
      "edit_workspace_file",
      "apply_workspace_patch",
      "read_workspace_image",
      "exec_command",
      "command_session",
    ]);
    expect(buildProgram(s.agent).sandbox).toBeUndefined();
    const session = cleanups.closeLater(await s.runner.createSession());
    const { events, error } = await drain(session.run("go"));
    expect(error).toBeUndefined();
    const [result] = toolEnds(events);
    const report = JSON.parse(result?.text ?? "{}") as CommandSessionReport;
    expect(report.state).toBe("terminal");
    expect(report.stdout.text).toBe(`${s.root}\nhello\n`);
  });

  it("refuses a second sandbox declaration on the agent of an OS workspace", async () => {
    const root = await realpath(temp.path);
    const agent = defineAgent("test.two-sandboxes", {
      model: scriptedModel([{ text: "ok" }]),
      sandbox: "castellan.other",
      capabilities: [workspace({ root: pathToFileURL(`${root}/`) })],
    });
    expect(() => buildProgram(agent)).toThrow(/a sandbox is declared by the agent and by capability "workspace"/);
  });

  it("derives each Session's root from its params and refuses a bad one at open (workspace_root_invalid)", async () => {
    const first = await extraDir("castellan-root-a-");
    const second = await extraDir("castellan-root-b-");
    await writeTree(first, { "a.txt": "a" });
    await writeTree(second, { "b.txt": "b" });
    const model = scriptedModel([
      call("list_workspace", {}),
      { text: "one" },
      call("list_workspace", {}),
      { text: "two" },
    ]);
    const agent = defineAgent("test.derived", {
      model,
      params: ["checkout"],
      capabilities: [
        workspace({ root: (params) => new URL(String(params.checkout)), sandbox: "none", readOnly: true }),
      ],
    });
    const runner = await createNodeRunner({ agent, permissions: "full-access" });
    cleanups.push(() => runner.close());
    const listed: string[] = [];
    for (const directory of [first, second]) {
      const session = cleanups.closeLater(
        await runner.createSession({ params: { checkout: pathToFileURL(`${directory}/`).href } }),
      );
      const { events } = await drain(session.run("list"));
      const [end] = toolEnds(events);
      listed.push(
        ...(JSON.parse(end?.text ?? "{}") as { entries: { path: string }[] }).entries.map((entry) => entry.path),
      );
    }
    expect(listed).toEqual(["a.txt", "b.txt"]);
    await expect(
      runner.createSession({ params: { checkout: pathToFileURL(join(first, "missing/")).href } }),
    ).rejects.toMatchObject({ code: "workspace_root_invalid" });
  });

  it("checks options at creation (workspace_options_invalid, workspace_root_invalid)", async () => {
    const root = pathToFileURL(`${await realpath(temp.path)}/`);
    expect(() => workspace({ root, color: "red" } as unknown as WorkspaceOptions)).toThrow(
      expect.objectContaining({ code: "workspace_options_invalid" }),
    );
    expect(() => workspace({ root, sandbox: "none", network: { allowedDomains: ["example.com"] } })).toThrow(
      /needs sandbox: "os"/,
    );
    expect(() => workspace({ root, readOnly: true, commands: { pollWaitMs: 10 } })).toThrow(/readOnly/);
    expect(() => workspace({ root, files: { maxPageBytes: 1 } })).toThrow(
      expect.objectContaining({ code: "workspace_options_invalid" }),
    );
    expect(() => workspace({ root, filesystem: { allowWrite: ["relative/path"] } })).toThrow(/relative path/);
    expect(() => workspace({ root: pathToFileURL("/nonexistent/castellan-root/") })).toThrow(
      expect.objectContaining({ code: "workspace_root_invalid" }),
    );
    expect(() =>
      workspace({ root, commands: { environment: { inherit: "core", set: { OPENAI_API_KEY: "x" } } } }),
    ).toThrow(expect.objectContaining({ code: "environment_invalid" }));
  });

  it("states the workspace rules in a system section, which builtinPrompts replaces or omits, inspection showing it", async () => {
    const plain = await setup([]);
    const session = cleanups.closeLater(await plain.runner.createSession());
    await drain(session.run("hi"));
    const system = systemOf(plain.model.requests[0]);
    expect(system).toContain("## workspace");
    expect(system).toContain("search_workspace");
    expect(system).toContain('lifetime: "session"');
    expect(system).not.toContain("request_network_access");

    const custom = await setup([], { runner: { builtinPrompts: { workspace: "Custom workspace rules." } } });
    const customSession = cleanups.closeLater(await custom.runner.createSession());
    await drain(customSession.run("hi"));
    expect(systemOf(custom.model.requests[0])).toContain("## workspace\n\nCustom workspace rules.");
    expect(systemOf(custom.model.requests[0])).not.toContain("search_workspace");
    expect(customSession.inspect().current.sections.find((section) => section.name === "workspace")?.text).toBe(
      "Custom workspace rules.",
    );
    expect(custom.model.requests[0]?.tools.map((tool) => tool.name)).toContain("exec_command");

    const omitted = await setup([], { runner: { builtinPrompts: { workspace: "" } } });
    const omittedSession = cleanups.closeLater(await omitted.runner.createSession());
    await drain(omittedSession.run("hi"));
    expect(systemOf(omitted.model.requests[0])).not.toContain("## workspace");
    await expect(
      createNodeRunner({ agent: omitted.agent, builtinPrompts: { nope: "x" } as never }),
    ).rejects.toMatchObject({
      code: "invalid_options",
    });
  });

  it("loads AGENTS.md per Run, and a command's paths (cd nested && cat f) discover nothing", async () => {
    await writeTree(temp.path, {
      "AGENTS.md": "Root rule: be brief.\n",
      "nested/AGENTS.md": "Nested rule: never touch f.\n",
      "nested/f": "content of f\n",
    });
    const s = await setup([call("exec_command", { command: "cd nested && cat f" })]);
    const session = cleanups.closeLater(await s.runner.createSession());
    const { events } = await drain(session.run("go"));
    const [end] = toolEnds(events);
    expect((JSON.parse(end?.text ?? "{}") as CommandSessionReport).stdout.text).toBe("content of f\n");
    for (const request of s.model.requests) {
      expect(request.context).toContain("Root rule: be brief.");
      expect(request.context ?? "").not.toContain("Nested rule");
    }
  });

  it("polls its own handle without asking again, and refuses another Session's handle (command_unknown)", async () => {
    const asked: ToolApprovalRequest[] = [];
    let commandId = "";
    const handleCall = (action: "poll" | "stop") => () => call("command_session", { commandId, action });
    const s = await setup(
      [
        call("exec_command", { command: "sleep 0.3; echo finished" }),
        { text: "launched" },
        handleCall("poll"),
        { text: "polled" },
        handleCall("stop"),
        { text: "stopped" },
        handleCall("poll"),
      ],
      { asked, commands: { ...fast, initialYieldMs: 0 } },
    );
    const sessionA = cleanups.closeLater(await s.runner.createSession());
    const sessionB = cleanups.closeLater(await s.runner.createSession());
    const launched = toolEnds((await drain(sessionA.run("launch"))).events);
    commandId = (JSON.parse(launched[0]?.text ?? "{}") as CommandSessionReport).commandId;
    expect(commandId).toMatch(/^cmd_/);
    await drain(sessionA.run("poll"));
    const stopped = toolEnds((await drain(sessionA.run("stop"))).events);
    expect((JSON.parse(stopped[0]?.text ?? "{}") as CommandSessionReport).state).toBe("terminal");
    expect(asked.map((request) => request.toolName)).toEqual(["exec_command"]);
    const foreign = toolEnds((await drain(sessionB.run("poll a foreign handle"))).events);
    expect(foreign[0]?.isError).toBe(true);
    expect(foreign[0]?.text).toMatch(/^command_unknown/);
    expect(asked.map((request) => request.toolName)).toEqual(["exec_command"]);
  });

  it("keeps a session-lifetime command past its Run and kills it when its Session closes", async () => {
    const s = await setup([call("exec_command", { command: "echo $$; exec sleep 60", lifetime: "session" })], {
      commands: { ...fast, initialYieldMs: 100 },
    });
    const session = await s.runner.createSession();
    await drain(session.run("start a service"));
    const [live] = s.capability.sessionCommands(session.id);
    expect(live?.command).toBe("echo $$; exec sleep 60");
    const pid = Number(live?.stdout.text.trim());
    expect(() => process.kill(pid, 0)).not.toThrow();
    await session.close();
    expect(() => process.kill(pid, 0)).toThrow();
    expect(s.capability.sessionCommands(session.id)).toEqual([]);
  });

  it("bounds a 10 MB command's report to the first and last halves, counting droppedBytes exactly", async () => {
    const s = await setup([call("exec_command", { command: "head -c 10485760 /dev/zero | tr '\\0' x" })]);
    const session = cleanups.closeLater(await s.runner.createSession());
    const [end] = toolEnds((await drain(session.run("go"))).events);
    const report = JSON.parse(end?.text ?? "{}") as CommandSessionReport;
    expect(report.state).toBe("terminal");
    expect(report.stdout.bytes).toBe(10_485_760);
    expect(report.stdout.droppedBytes).toBe(10_485_760 - 65_536);
    expect(report.stdout.text).toBe("x".repeat(65_536));
  });

  describe("publish_workspace", () => {
    async function gitRepository(root: string) {
      const git = (...args: string[]) => run("git", args, { cwd: root });
      await git("init", "-q", "-b", "main");
      await git("config", "user.email", "castellan@example.invalid");
      await git("config", "user.name", "Castellan test");
      await writeFile(join(root, "README.md"), "sample\n");
      await git("add", ".");
      await git("commit", "-qm", "initial");
      const remote = await extraDir("castellan-remote-");
      await run("git", ["init", "-q", "--bare", remote]);
      return { git, remote };
    }

    it("succeeds only on the publisher's verified reference: a pushed branch checked with git ls-remote", async () => {
      const root = await realpath(temp.path);
      const { git, remote } = await gitRepository(root);
      const publisher: WorkspacePublisher = {
        async publish({ root: publishedRoot, summary }) {
          const cwd = publishedRoot.pathname;
          await run("git", ["commit", "-qam", summary, "--allow-empty"], { cwd });
          await run("git", ["push", "-q", remote, "HEAD:refs/heads/castellan/work"], { cwd });
          const { stdout } = await run("git", ["ls-remote", remote, "refs/heads/castellan/work"]);
          const [sha] = stdout.trim().split(/\s+/);
          const { stdout: head } = await run("git", ["rev-parse", "HEAD"], { cwd });
          return { reference: `refs/heads/castellan/work@${sha}`, verified: sha === head.trim() };
        },
      };
      await writeFile(join(root, "README.md"), "changed\n");
      const s = await setup([call("publish_workspace", { summary: "  Change the README  " })], { publisher });
      const session = cleanups.closeLater(await s.runner.createSession());
      const [end] = toolEnds((await drain(session.run("publish"))).events);
      expect(end?.isError).toBe(false);
      const { stdout: head } = await git("rev-parse", "HEAD");
      expect(JSON.parse(end?.text ?? "{}")).toEqual({
        published: true,
        reference: `refs/heads/castellan/work@${head.trim()}`,
      });
      const { stdout: message } = await git("log", "-1", "--format=%s");
      expect(message.trim()).toBe("Change the README");
    });

    it("is an error saying nothing was published for an unverified answer or a failing publisher", async () => {
      const answers: WorkspacePublisher[] = [
        { publish: async () => ({ reference: "refs/heads/x", verified: false }) },
        {
          publish: async () => {
            throw new Error("remote rejected");
          },
        },
      ];
      const texts: string[] = [];
      for (const publisher of answers) {
        const s = await setup([call("publish_workspace", { summary: "done" })], { publisher });
        const session = cleanups.closeLater(await s.runner.createSession());
        const [end] = toolEnds((await drain(session.run("publish"))).events);
        expect(end?.isError).toBe(true);
        texts.push(end?.text ?? "");
      }
      expect(texts[0]).toMatch(/^not published: .*no verified delivery reference/);
      expect(texts[1]).toBe("not published: the publisher failed: remote rejected");
    });

    it("is not declared without a publisher", async () => {
      const s = await setup([]);
      expect(buildProgram(s.agent).tools.map((tool) => tool.name)).not.toContain("publish_workspace");
      await mkdir(join(temp.path, "unused"), { recursive: true });
    });
  });
});
