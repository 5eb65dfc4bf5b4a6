// exec_command and command_session through a real Runner, with real processes: the initial
// yield (terminal or a running handle), poll deltas, the deadline, session-lifetime commands
// outliving their Run and dying at Session close, Run aborts, handles scoped to their Session,
// one approval per process, the environment policy, the host ports, and option checks.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { JsonObject, ModelRequest, RunEvent } from "@castellan/harness";
import type { ScriptedStep, ScriptedStepSource } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import {
  type CommandSessionOptions,
  type CommandSessionReport,
  type CommandTerminalUpdate,
  createCommandSessionPlugin,
} from "../src/capabilities/commands/session/index.js";
import type { NodeRunnerPlugin, PermissionPreset, ToolApprovalRequest } from "../src/index.js";
import { processesWithMarker, stillRunning, uniqueMarker } from "./fixtures/command-processes.ts";
import {
  approvalPlugin,
  type CommandRunner,
  cleanupAfterEach,
  collect,
  commandRunner,
  drain,
  plugin,
  tempDirPerTest,
  textOf,
  toolMessages,
} from "./support/index.ts";

const temp = tempDirPerTest("castellan-commands-");
const cleanups = cleanupAfterEach();
const fast = { initialYieldMs: 200, executionTimeoutMs: 1_500, killGraceMs: 200, pollWaitMs: 2_000 } as const;
const slow = 15_000;

type Setup = CommandRunner;

function setup(
  steps: readonly ScriptedStepSource[],
  options: {
    readonly commandOptions?: Partial<CommandSessionOptions>;
    readonly permissions?: PermissionPreset;
    readonly plugins?: readonly NodeRunnerPlugin[];
  } = {},
): Promise<Setup> {
  return commandRunner({
    directory: temp.path,
    agentId: "test.commands",
    steps,
    ...options,
    commandOptions: { ...fast, ...options.commandOptions },
    close: (close) => cleanups.push(close),
  });
}

/** A model step calling `name` with `input`. */
const call = (name: string, input: JsonObject, id?: string): ScriptedStep => ({
  toolCalls: [{ name, input, ...(id ? { id } : {}) }],
});

/** The report of the latest tool result in `request`. */
function lastReport(request: ModelRequest): CommandSessionReport {
  const messages = toolMessages(request.messages);
  return JSON.parse(textOf(messages[messages.length - 1])) as CommandSessionReport;
}

/** A step acting on the handle of the latest report. */
const onLast =
  (action: "poll" | "stop"): ScriptedStepSource =>
  (request) =>
    call("command_session", { commandId: lastReport(request).commandId, action });

/** Every tool result of a Run's events, with its report when it is one. */
function results(events: readonly RunEvent[]) {
  return events.flatMap((event) => {
    if (event.kind !== "tool-end") return [];
    const text = textOf(event.result);
    const report = event.result.isError ? undefined : (JSON.parse(text) as CommandSessionReport);
    return [{ toolName: event.toolName, isError: event.result.isError === true, text, report }];
  });
}

/** Waits until `check` holds, polling every 20 ms for at most 5 s. */
async function eventually(check: () => Promise<boolean> | boolean): Promise<void> {
  const until = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("The condition did not hold within 5 s.");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** An approval plugin recording each request and answering `decision`. */
const answering = (asked: ToolApprovalRequest[], decision: "allow" | "deny") =>
  approvalPlugin(async (request) => {
    asked.push(request);
    return { decision };
  });

const stream = (text: string) => ({ text, bytes: Buffer.byteLength(text), droppedBytes: 0 });

describe("exec_command and command_session", () => {
  it(
    "returns a fast command's terminal report, and a slow one's running handle whose polls give only new output",
    async () => {
      const { runner, updates } = await setup(
        [
          call("exec_command", { command: "echo hello; exit 3" }),
          call("exec_command", { command: "echo first; sleep 0.6; echo second; sleep 5" }),
          onLast("poll"),
          onLast("poll"),
          onLast("stop"),
          { text: "done" },
        ],
        { commandOptions: { pollWaitMs: 1_000, executionTimeoutMs: 10_000 } },
      );
      const session = cleanups.closeLater(await runner.createSession());
      const { events, error } = await drain(session.run("go"));
      expect(error).toBeUndefined();
      const [echo, started, ...polls] = results(events);
      expect(echo).toMatchObject({ toolName: "exec_command", isError: false });
      expect(echo?.report).toEqual({
        type: "command-session-report",
        commandId: expect.stringMatching(/^cmd_[0-9a-f]{24}$/),
        state: "terminal",
        outcome: "exit",
        exitCode: 3,
        signal: null,
        lifetime: "run",
        deadline: expect.any(String),
        stdout: stream("hello\n"),
        stderr: stream(""),
      });
      const id = started?.report?.commandId;
      expect(started?.report).toMatchObject({ state: "running", exitCode: null, stdout: stream("first\n") });
      expect(Date.parse(started?.report?.deadline ?? "")).toBeGreaterThan(Date.now() - 2_000);
      // The first poll waits for "second"; the next finds nothing new within pollWaitMs.
      expect(polls.map((result) => result.report)).toEqual([
        expect.objectContaining({ commandId: id, state: "running", stdout: stream("second\n") }),
        expect.objectContaining({ commandId: id, state: "running", stdout: stream("") }),
        expect.objectContaining({ commandId: id, state: "terminal", outcome: "stop", stdout: stream("") }),
      ]);
      expect(updates.map((update) => [update.outcome, update.stdout.text])).toEqual([
        ["exit", "hello\n"],
        ["stop", "first\nsecond\n"],
      ]);
      expect(updates[1]).toMatchObject({
        sessionId: session.id,
        command: expect.stringContaining("first"),
        lifetime: "run",
      });
    },
    slow,
  );

  it(
    "ends a command that ignores SIGTERM at its deadline with timeout and exit code 124",
    async () => {
      const { runner } = await setup(
        [call("exec_command", { command: "trap '' TERM; sleep 30" }), onLast("poll"), { text: "done" }],
        { commandOptions: { pollWaitMs: 5_000 } },
      );
      const session = cleanups.closeLater(await runner.createSession());
      const { events } = await drain(session.run("go"));
      const [started, polled] = results(events);
      expect(started?.report?.state).toBe("running");
      expect(polled?.report).toMatchObject({ state: "terminal", outcome: "timeout", exitCode: 124, signal: "SIGKILL" });
    },
    slow,
  );

  it(
    "keeps a session-lifetime command past its Run and the next, and kills it when the Session closes",
    async () => {
      const marker = uniqueMarker();
      const changes: string[] = [];
      const { runner, commands, updates } = await setup(
        [
          call("exec_command", { command: `sleep ${marker}`, lifetime: "session" }, "launch"),
          { text: "up" },
          { text: "still up" },
        ],
        { commandOptions: { onSessionCommandsChanged: ({ sessionId }) => void changes.push(sessionId) } },
      );
      const session = cleanups.closeLater(await runner.createSession());
      const launching = new AbortController();
      const { events } = await drain(session.run("start it", { signal: launching.signal }));
      expect(results(events)[0]?.report).toMatchObject({ state: "running", lifetime: "session", deadline: null });
      const pids = await processesWithMarker(marker);
      expect(pids.length).toBeGreaterThan(0);
      await session.run("later").result;
      // A turn of the later Run detached the launching Run: aborting its signal now kills nothing.
      launching.abort();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await stillRunning(pids)).toEqual(pids);
      expect(commands.sessionCommands(session.id)).toHaveLength(1);
      expect(changes).toEqual([session.id]);
      await session.close();
      expect(await stillRunning(pids)).toEqual([]);
      expect(updates).toMatchObject([{ toolCallId: "launch", lifetime: "session", outcome: "cleanup" }]);
      expect(changes).toEqual([session.id, session.id]);
    },
    slow,
  );

  it(
    "kills the aborted Run's commands, ordinary and session-lifetime, reporting cleanup",
    async () => {
      const [first, second] = [uniqueMarker(), uniqueMarker()];
      const controller = new AbortController();
      const { runner, updates } = await setup([
        {
          toolCalls: [
            { name: "exec_command", input: { command: `sleep ${first}`, lifetime: "session" } },
            { name: "exec_command", input: { command: `sleep ${second}` } },
          ],
        },
        () => {
          setTimeout(() => controller.abort(), 50);
          return { hang: true };
        },
      ]);
      const session = cleanups.closeLater(await runner.createSession());
      const run = session.run("go", { signal: controller.signal });
      await collect(run);
      await expect(run.result).rejects.toMatchObject({ code: "run_aborted" });
      await eventually(() => updates.length === 2);
      expect(updates.map((update) => [update.lifetime, update.outcome]).sort()).toEqual([
        ["run", "cleanup"],
        ["session", "cleanup"],
      ]);
      expect(await processesWithMarker(first)).toEqual([]);
      expect(await processesWithMarker(second)).toEqual([]);
    },
    slow,
  );

  it(
    "kills an ordinary command when its Run is aborted before the first yield",
    async () => {
      const marker = uniqueMarker();
      const controller = new AbortController();
      const { runner, updates } = await setup(
        [call("exec_command", { command: `sleep ${marker}` }), { text: "never" }],
        {
          commandOptions: { initialYieldMs: 1_500 },
        },
      );
      const session = cleanups.closeLater(await runner.createSession());
      const run = session.run("go", { signal: controller.signal });
      await eventually(async () => (await processesWithMarker(marker)).length > 0);
      controller.abort();
      await collect(run);
      await expect(run.result).rejects.toMatchObject({ code: "run_aborted" });
      await eventually(() => updates.length === 1);
      expect(updates[0]).toMatchObject({ outcome: "cleanup", lifetime: "run", command: `sleep ${marker}` });
      expect(await processesWithMarker(marker)).toEqual([]);
    },
    slow,
  );

  it(
    "refuses a handle of Session A in Session B with command_unknown, asking nobody",
    async () => {
      let handle = "";
      const asked: ToolApprovalRequest[] = [];
      const { runner } = await setup(
        [
          call("exec_command", { command: "sleep 5" }),
          (request) => {
            handle = lastReport(request).commandId;
            return { text: "A" };
          },
          () => call("command_session", { commandId: handle, action: "stop" }),
          { text: "B" },
        ],
        {
          permissions: "ask-on-write",
          plugins: [answering(asked, "allow")],
        },
      );
      const a = cleanups.closeLater(await runner.createSession());
      await a.run("a").result;
      const b = cleanups.closeLater(await runner.createSession());
      const { events } = await drain(b.run("b"));
      const [refused] = results(events);
      expect(refused).toMatchObject({ toolName: "command_session", isError: true });
      expect(refused?.text).toMatch(/^command_unknown: /);
      expect(asked.map((request) => request.toolName)).toEqual(["exec_command"]);
    },
    slow,
  );

  it(
    "asks once per process under ask-on-write: polls and stop never reach the approval adapter",
    async () => {
      const asked: ToolApprovalRequest[] = [];
      const { runner } = await setup(
        [call("exec_command", { command: "sleep 5" }), onLast("poll"), onLast("stop"), { text: "done" }],
        {
          permissions: "ask-on-write",
          commandOptions: { pollWaitMs: 50 },
          plugins: [answering(asked, "allow")],
        },
      );
      const session = cleanups.closeLater(await runner.createSession());
      const { events } = await drain(session.run("go"));
      expect(results(events).map((result) => result.report?.state)).toEqual(["running", "running", "terminal"]);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({
        toolName: "exec_command",
        readOnly: false,
        admission: { policyKey: "exec_command", command: "sleep 5", lifetime: "run", workdir: "." },
      });
      const permissions = events.filter((event) => event.kind === "tool-permission");
      expect(permissions.map((event) => [event.toolName, event.decidedBy])).toEqual([
        ["exec_command", "approval"],
        ["command_session", "hook"],
        ["command_session", "hook"],
      ]);
    },
    slow,
  );

  it(
    "a remembered exec_command grant allows ordinary commands and still asks for lifetime session",
    async () => {
      const asked: ToolApprovalRequest[] = [];
      const granted = plugin("test.grants", (host) =>
        host.hooks.toolPermission((request) =>
          (request.admission as { policyKey?: string } | undefined)?.policyKey === "exec_command" ? "allow" : "defer",
        ),
      );
      const { runner } = await setup(
        [
          call("exec_command", { command: "echo ok" }),
          call("exec_command", { command: "sleep 5", lifetime: "session" }),
          { text: "done" },
        ],
        {
          permissions: "ask-on-write",
          plugins: [granted, answering(asked, "deny")],
        },
      );
      const session = cleanups.closeLater(await runner.createSession());
      const { events } = await drain(session.run("go"));
      const [ordinary, service] = results(events);
      expect(ordinary?.report).toMatchObject({ state: "terminal", stdout: stream("ok\n") });
      expect(service?.isError).toBe(true);
      expect(asked.map((request) => request.admission)).toEqual([
        { policyKey: "exec_command:session", command: "sleep 5", lifetime: "session", workdir: "." },
      ]);
    },
    slow,
  );

  it(
    "gives the command the policy's environment, computed at spawn, in the workdir asked for",
    async () => {
      const saved = { ...process.env };
      process.env.COMMAND_TEST_EXCLUDED = "dropped";
      process.env.COMMAND_TEST_TOKEN = "secret";
      cleanups.push(() => {
        delete process.env.COMMAND_TEST_EXCLUDED;
        delete process.env.COMMAND_TEST_TOKEN;
        delete process.env.COMMAND_TEST_LATE;
        Object.assign(process.env, saved);
      });
      const { runner, root } = await setup(
        [
          call("exec_command", { command: "env; pwd", workdir: "sub/dir" }),
          call("exec_command", { command: "pwd", workdir: "../elsewhere" }),
          { text: "done" },
        ],
        {
          commandOptions: {
            environment: { inherit: "all", exclude: ["command_test_excl*"], set: { COMMAND_TEST_SET: "yes" } },
          },
        },
      );
      await mkdir(join(root, "sub", "dir"), { recursive: true });
      // Set after the plugin was made: the environment is the host's at the spawn.
      process.env.COMMAND_TEST_LATE = "late";
      const session = cleanups.closeLater(await runner.createSession());
      const { events } = await drain(session.run("go"));
      const [listed, outside] = results(events);
      const lines = listed?.report?.stdout.text.split("\n") ?? [];
      expect(lines).toContain("COMMAND_TEST_SET=yes");
      expect(lines).toContain("COMMAND_TEST_LATE=late");
      expect(lines.some((line) => line.startsWith("COMMAND_TEST_EXCLUDED="))).toBe(false);
      expect(lines.some((line) => line.startsWith("COMMAND_TEST_TOKEN="))).toBe(false);
      expect(lines).toContain(join(root, "sub", "dir"));
      expect(outside).toMatchObject({ isError: true });
      expect(outside?.text).toMatch(/^path_invalid: /);
    },
    slow,
  );

  it(
    "lists live session commands for the host, stops one, publishes its end, and tells of each change",
    async () => {
      const changes: string[] = [];
      const { runner, commands, updates } = await setup(
        [call("exec_command", { command: "echo ready; sleep 30", lifetime: "session" }, "svc"), { text: "up" }],
        { commandOptions: { onSessionCommandsChanged: ({ sessionId }) => void changes.push(sessionId) } },
      );
      const session = cleanups.closeLater(await runner.createSession());
      const { events } = await drain(session.run("go"));
      const id = results(events)[0]?.report?.commandId ?? "";
      const runId = events[0]?.runId;
      const listed = commands.sessionCommands(session.id);
      expect(listed).toEqual([
        {
          commandId: id,
          command: "echo ready; sleep 30",
          runId,
          toolCallId: "svc",
          startedAt: expect.any(String),
          stdout: expect.objectContaining({ text: "ready\n" }),
          stderr: expect.objectContaining({ text: "" }),
        },
      ]);
      // Listing consumes nothing.
      expect(commands.sessionCommands(session.id)).toEqual(listed);
      expect(commands.sessionCommands("another-session")).toEqual([]);
      expect(changes).toEqual([session.id]);
      await commands.stopSessionCommand(session.id, id);
      expect(updates).toMatchObject([{ commandId: id, outcome: "stop", stdout: { text: "ready\n" } }]);
      expect(commands.sessionCommands(session.id)).toEqual([]);
      expect(changes).toEqual([session.id, session.id]);
      // Already ended: nothing to stop, resolves at once.
      await commands.stopSessionCommand(session.id, id);
      await expect(commands.stopSessionCommand("another-session", id)).rejects.toMatchObject({
        code: "command_not_found",
      });
    },
    slow,
  );

  it(
    "answers a poll of a released handle from readTerminal, or says it was released",
    async () => {
      const stored = new Map<string, CommandTerminalUpdate>();
      const { runner } = await setup(
        [call("exec_command", { command: "echo once" }), onLast("poll"), { text: "done" }],
        {
          commandOptions: {
            onTerminalUpdate: (update) => void stored.set(`${update.sessionId}/${update.commandId}`, update),
            readTerminal: ({ sessionId, commandId }) => stored.get(`${sessionId}/${commandId}`),
          },
        },
      );
      const session = cleanups.closeLater(await runner.createSession());
      const { events } = await drain(session.run("go"));
      const [first, again] = results(events);
      expect(first?.report).toMatchObject({ state: "terminal", stdout: stream("once\n") });
      // The receipt holds the complete bounded output, not a new delta.
      expect(again?.report).toEqual({ ...first?.report, deadline: null });

      const bare = await setup([call("exec_command", { command: "true" }), onLast("stop"), { text: "done" }]);
      const other = cleanups.closeLater(await bare.runner.createSession());
      const [, released] = results((await drain(other.run("go"))).events);
      expect(released?.isError).toBe(true);
      expect(released?.text).toMatch(/^command_released: /);
    },
    slow,
  );

  it("reports a shell that cannot start as a host failure", async () => {
    const { runner, updates } = await setup([call("exec_command", { command: "true" }), { text: "done" }], {
      commandOptions: { shell: { executable: "/nonexistent/sh", arguments: ["-c"] } },
    });
    const session = cleanups.closeLater(await runner.createSession());
    const [failed] = results((await drain(session.run("go"))).events);
    expect(failed?.isError).toBe(true);
    expect(failed?.text).toMatch(/^tool_execution_host_error: .*could not be started/);
    expect(updates).toEqual([]);
  });

  it(
    "refuses a launch over maxLiveCommands with command_limit_reached",
    async () => {
      const { runner } = await setup(
        [call("exec_command", { command: "sleep 5" }), call("exec_command", { command: "sleep 5" }), { text: "done" }],
        { commandOptions: { maxLiveCommands: 1 } },
      );
      const session = cleanups.closeLater(await runner.createSession());
      const [, refused] = results((await drain(session.run("go"))).events);
      expect(refused?.isError).toBe(true);
      expect(refused?.text).toMatch(/^command_limit_reached: /);
    },
    slow,
  );

  it(
    "closes the Session with command_observer_failed after ending its commands when an observer failed",
    async () => {
      const marker = uniqueMarker();
      const failure = new Error("the ledger is down");
      const { runner } = await setup(
        [call("exec_command", { command: `sleep ${marker}`, lifetime: "session" }), { text: "up" }],
        {
          commandOptions: {
            onTerminalUpdate: () => Promise.reject(failure),
          },
        },
      );
      const session = await runner.createSession();
      await session.run("go").result;
      const error = await session.close().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toMatchObject({
        code: "session_hook_failed",
        cause: { code: "command_observer_failed", failures: [failure] },
      });
      expect(await processesWithMarker(marker)).toEqual([]);
    },
    slow,
  );
});

describe("createCommandSessionPlugin's options", () => {
  const valid = () => ({ workingDirectory: pathToFileURL(`${temp.path}/`), environment: { inherit: "none" as const } });

  it.each<[string, (base: ReturnType<typeof valid>) => unknown, string]>([
    ["no options", () => undefined, "command_options_invalid"],
    ["an unknown option", (base) => ({ ...base, timeout: 5 }), "command_options_invalid"],
    ["no workingDirectory", ({ environment }) => ({ environment }), "command_options_invalid"],
    ["no environment", ({ workingDirectory }) => ({ workingDirectory }), "command_options_invalid"],
    [
      "initialYieldMs over executionTimeoutMs",
      (base) => ({ ...base, executionTimeoutMs: 1_000, initialYieldMs: 1_001 }),
      "command_options_invalid",
    ],
    [
      "a small maxOutputBytesPerStream",
      (base) => ({ ...base, maxOutputBytesPerStream: 1_023 }),
      "command_options_invalid",
    ],
    ["a fractional pollWaitMs", (base) => ({ ...base, pollWaitMs: 1.5 }), "command_options_invalid"],
    ["maxLiveCommands 0", (base) => ({ ...base, maxLiveCommands: 0 }), "command_options_invalid"],
    ["a shell without arguments", (base) => ({ ...base, shell: { executable: "/bin/sh" } }), "command_options_invalid"],
    ["a port that is no function", (base) => ({ ...base, readTerminal: {} }), "command_options_invalid"],
    [
      "a missing directory",
      (base) => ({ ...base, workingDirectory: pathToFileURL(`${temp.path}/missing/`) }),
      "workspace_root_invalid",
    ],
    ["a malformed policy", (base) => ({ ...base, environment: { inherit: "most" } }), "environment_invalid"],
  ])("refuses %s", (_name, make, code) => {
    expect(() => createCommandSessionPlugin(make(valid()) as CommandSessionOptions)).toThrow(
      expect.objectContaining({ code }),
    );
  });

  it("accepts the defaults", () => {
    expect(createCommandSessionPlugin(valid()).name).toBe("castellan.command-session");
  });
});
