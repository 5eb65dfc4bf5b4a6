// Command observations in model requests, with real processes and a scripted model: a line per
// yielded handle in every request, turning terminal when the command ends without a poll, gone
// once a terminal report reached the model; newest first and capped at 32 with a count; left out
// of compaction requests, kept after compaction, dropped at close; and rebuilt in a second OS
// process from the file store's saved receipts, terminal through readTerminal or `unavailable`.
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JsonObject, ModelRequest } from "@castellan/harness";
import type { ScriptedStep, ScriptedStepSource } from "@castellan/models/testing";
import { afterAll, describe, expect, it } from "vitest";
import type {
  CommandSessionOptions,
  CommandSessionReport,
  CommandTerminalUpdate,
} from "../src/capabilities/commands/session/index.js";
import { createFileSessionStore, type NodeRunnerPlugin } from "../src/index.js";
import { killRemaining, startFixture } from "./fixtures/child.ts";
import { processesWithMarker, uniqueMarker } from "./fixtures/command-processes.ts";
import { cleanupAfterEach, commandRunner, storePlugin, tempDirPerTest, textOf, toolMessages } from "./support/index.ts";

const temp = tempDirPerTest("castellan-observations-");
const cleanups = cleanupAfterEach();
const fast = { initialYieldMs: 100, executionTimeoutMs: 20_000, killGraceMs: 200, pollWaitMs: 2_000 } as const;
const slow = 20_000;
const heading = "## Command observations";

afterAll(() => killRemaining());

function setup(
  steps: readonly ScriptedStepSource[],
  options: {
    readonly commandOptions?: Partial<CommandSessionOptions>;
    readonly plugins?: readonly NodeRunnerPlugin[];
  } = {},
) {
  return commandRunner({
    directory: temp.path,
    agentId: "test.command-observations",
    steps,
    ...options,
    commandOptions: { ...fast, ...options.commandOptions },
    close: (close) => cleanups.push(close),
  });
}

const call = (name: string, input: JsonObject): ScriptedStep => ({ toolCalls: [{ name, input }] });

function reportsOf(request: ModelRequest): CommandSessionReport[] {
  return toolMessages(request.messages).map((message) => JSON.parse(textOf(message)) as CommandSessionReport);
}

/** The observation block of a request's context, or undefined. */
function block(request: ModelRequest | undefined): string | undefined {
  const context = request?.context ?? "";
  const at = context.indexOf(heading);
  return at < 0 ? undefined : context.slice(at);
}

/** The handle lines of a block. */
const handleLines = (text: string | undefined) => (text ?? "").split("\n").filter((line) => line.startsWith("- cmd_"));

async function eventually(check: () => boolean): Promise<void> {
  const until = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > until) throw new Error("The condition did not hold within 5 s.");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("command observations", () => {
  it(
    "are in every request, turn terminal when the command ends without a poll, and go once a terminal report reached the model",
    async () => {
      const { runner, model, updates } = await setup([
        call("exec_command", { command: "sleep 0.5; exit 4" }),
        { text: "started" },
        (request) => call("command_session", { commandId: reportsOf(request)[0]?.commandId ?? "", action: "poll" }),
        { text: "done" },
      ]);
      const session = cleanups.closeLater(await runner.createSession());
      await session.run("go").result;
      const id = reportsOf(model.requests[1] as ModelRequest)[0]?.commandId ?? "";
      expect(reportsOf(model.requests[1] as ModelRequest)[0]?.state).toBe("running");
      expect(block(model.requests[0])).toBeUndefined();
      const running = block(model.requests[1]);
      expect(running).toContain('Observations authorize nothing, and "running" says nothing about health.');
      expect(handleLines(running)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^- ${id}: state running, outcome none, exit code none, signal none, deadline \\d{4}-\\d\\d-\\d\\dT`,
          ),
        ),
      ]);
      // No command text, no output.
      expect(running).not.toContain("sleep");
      await eventually(() => updates.length === 1);
      await session.run("again").result;
      // Ended, never polled: the next request says so.
      expect(handleLines(block(model.requests[2]))).toEqual([
        expect.stringMatching(
          new RegExp(`^- ${id}: state terminal, outcome exit, exit code 4, signal none, deadline `),
        ),
      ]);
      expect(reportsOf(model.requests[3] as ModelRequest).at(-1)).toMatchObject({ commandId: id, state: "terminal" });
      expect(block(model.requests[3])).toBeUndefined();
    },
    slow,
  );

  it(
    "never lists a command whose exec_command returned terminal",
    async () => {
      const { runner, model } = await setup([call("exec_command", { command: "exit 0" }), { text: "done" }]);
      const session = cleanups.closeLater(await runner.createSession());
      await session.run("go").result;
      expect(reportsOf(model.requests[1] as ModelRequest)[0]?.state).toBe("terminal");
      expect(block(model.requests[1])).toBeUndefined();
    },
    slow,
  );

  it(
    "lists newest first, at most 32 lines with a count of the rest",
    async () => {
      const many = Array.from({ length: 32 }, () => ({ name: "exec_command", input: { command: "sleep 30" } }));
      const { runner, model } = await setup(
        [
          call("exec_command", { command: "sleep 30" }),
          call("exec_command", { command: "sleep 30" }),
          { toolCalls: many },
          { text: "done" },
        ],
        { commandOptions: { initialYieldMs: 0, maxLiveCommands: 40 } },
      );
      const session = cleanups.closeLater(await runner.createSession());
      await session.run("go").result;
      const [first, second] = reportsOf(model.requests[2] as ModelRequest).map((report) => report.commandId);
      expect(handleLines(block(model.requests[2])).map((line) => line.split(":")[0])).toEqual([
        `- ${second}`,
        `- ${first}`,
      ]);
      const full = block(model.requests[3]);
      const lines = handleLines(full);
      expect(lines).toHaveLength(32);
      expect(full).not.toContain(first as string);
      expect(full).not.toContain(second as string);
      const rest = reportsOf(model.requests[3] as ModelRequest)
        .slice(2)
        .map((report) => report.commandId);
      expect(new Set(lines.map((line) => line.slice(2, 30)))).toEqual(new Set(rest));
      expect(full?.split("\n").at(-1)).toBe("- 2 more not listed");
    },
    slow,
  );

  it(
    "are left out of a compaction request, survive compaction, and are gone after close",
    async () => {
      const { runner, model } = await setup([
        call("exec_command", { command: "sleep 30" }),
        { text: "up" },
        { text: "second" },
        { text: "SUMMARY" },
        { text: "third" },
        { text: "fresh" },
      ]);
      const session = await runner.createSession();
      await session.run("go").result;
      await session.run("more").result;
      expect(await session.compact()).toBeDefined();
      await session.run("after").result;
      expect(model.requests).toHaveLength(5);
      expect(handleLines(block(model.requests[2]))).toHaveLength(1);
      expect(JSON.stringify(model.requests[3])).not.toContain(heading);
      expect(model.requests[3]?.messages.length).toBeGreaterThan(1);
      expect(handleLines(block(model.requests[4]))).toEqual(handleLines(block(model.requests[2])));
      await session.close();
      // A new Session with the same id (no store: no history) has no observations left.
      const again = cleanups.closeLater(await runner.createSession({ id: session.id }));
      await again.run("hello").result;
      expect(block(model.requests[5])).toBeUndefined();
    },
    slow,
  );

  describe("after a restart in another process", () => {
    /** Runs the child on a new Session; gives the directory, the Session id and the child's terminal update. */
    async function launchInChild(marker: string) {
      const directory = await realpath(await mkdtemp(join(tmpdir(), "castellan-observations-store-")));
      cleanups.push(() => rm(directory, { recursive: true, force: true }));
      const sessionId = `restart-${marker}`;
      const child = startFixture("command-observations-child.ts", [marker], {
        SESSION_DIRECTORY: directory,
        SESSION_ID: sessionId,
      });
      cleanups.push(async () => {
        child.kill();
        await child.exited.catch(() => undefined);
      });
      const exit = await child.exited;
      expect(exit).toMatchObject({ code: 0 });
      expect(exit.lines.at(-1)).toEqual({ closed: true });
      const update = (exit.lines[0] as { update: CommandTerminalUpdate }).update;
      expect(update).toMatchObject({ sessionId, outcome: "cleanup", toolCallId: "launch" });
      expect(await processesWithMarker(marker)).toEqual([]);
      return { directory, sessionId, update };
    }

    it(
      "rebuilds the handle as terminal through readTerminal, and as unavailable without a receipt",
      async () => {
        const marker = uniqueMarker();
        const { directory, sessionId, update } = await launchInChild(marker);
        const asked: unknown[] = [];
        const store = () => storePlugin(createFileSessionStore({ directory }));
        const first = await setup([{ text: "back" }], {
          plugins: [store()],
          commandOptions: {
            readTerminal: (request) => {
              asked.push(request);
              return request.sessionId === update.sessionId && request.commandId === update.commandId
                ? update
                : undefined;
            },
          },
        });
        const session = await first.runner.createSession({ id: sessionId });
        await session.run("again").result;
        await first.runner.close();
        expect(asked).toEqual([{ sessionId, commandId: update.commandId }]);
        const terminal = handleLines(block(first.model.requests[0]));
        expect(terminal).toEqual([
          expect.stringMatching(
            new RegExp(
              `^- ${update.commandId}: state terminal, outcome cleanup, exit code ${update.exitCode ?? "none"}, signal ${update.signal ?? "none"}, deadline `,
            ),
          ),
        ]);

        const second = await setup([{ text: "back" }], { plugins: [store()] });
        const reopened = await second.runner.createSession({ id: sessionId });
        await reopened.run("once more").result;
        await second.runner.close();
        expect(handleLines(block(second.model.requests[0]))).toEqual([
          expect.stringMatching(
            new RegExp(
              `^- ${update.commandId}: state unavailable, outcome none, exit code none, signal none, deadline `,
            ),
          ),
        ]);
        expect(await processesWithMarker(marker)).toEqual([]);
      },
      slow,
    );
  });
});
