import { isCastellanError } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import { shellCommand, useSupervisors } from "../../../test/fixtures/command-processes.ts";
import { type CommandResult, createCommandSupervisor } from "./index.js";

const supervisorFor = useSupervisors();

/** The error `work` throws or rejects with. */
async function failureOf(work: () => unknown): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error("Expected a failure.");
}

describe("the command registry", () => {
  it("refuses an owner's command past maxLiveCommands, at admission and at spawn, counting spawns under way", async () => {
    const supervisor = supervisorFor({ maxLiveCommands: 2 });
    const session = { lifetime: "session" } as const;
    const spawns = await Promise.allSettled([
      supervisor.spawn(shellCommand("s1", "sleep 30", session)),
      supervisor.spawn(shellCommand("s1", "sleep 30", session)),
      supervisor.spawn(shellCommand("s1", "sleep 30", session)),
    ]);
    expect(spawns.map((spawn) => spawn.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
    const refusal = spawns[2]?.status === "rejected" ? spawns[2].reason : undefined;
    expect(refusal).toMatchObject({ code: "command_limit_reached", ownerKey: "s1", limit: 2 });
    expect(isCastellanError(await failureOf(() => supervisor.checkCanSpawn("s1")), "command_limit_reached")).toBe(true);
    // The limit is per owner.
    expect(() => supervisor.checkCanSpawn("s2")).not.toThrow();
    await supervisor.spawn(shellCommand("s2", "true"));
    const [first] = supervisor.list("s1");
    await supervisor.stop(first?.commandId ?? "");
    expect(supervisor.liveCount("s1")).toBe(1);
    expect(() => supervisor.checkCanSpawn("s1")).not.toThrow();
  });

  it("lists an owner's commands, oldest first, and forgets an ended one on release", async () => {
    const supervisor = supervisorFor();
    const first = await supervisor.spawn(shellCommand("s1", "echo first"));
    const second = await supervisor.spawn(shellCommand("s1", "sleep 30", { lifetime: "session" }));
    expect(supervisor.list("s1").map((info) => info.commandId)).toEqual([first.commandId, second.commandId]);
    expect(supervisor.owners()).toEqual(["s1"]);
    await supervisor.waitFor(first.commandId, { untilMs: 10_000 });
    expect(supervisor.release(second.commandId)).toBe(false);
    expect(supervisor.release(first.commandId)).toBe(true);
    expect(supervisor.release(first.commandId)).toBe(false);
    expect(supervisor.get(first.commandId)).toBeUndefined();
    for (const use of [
      () => supervisor.readDelta(first.commandId),
      () => supervisor.readOutput(first.commandId),
      () => supervisor.stop(first.commandId),
      () => supervisor.waitFor(first.commandId, { untilMs: 0 }),
    ]) {
      expect(await failureOf(use)).toMatchObject({ code: "command_not_found", commandId: first.commandId });
    }
    expect(supervisor.list("s1").map((info) => info.commandId)).toEqual([second.commandId]);
  });

  it("calls onTerminal once with the final output, and collects what observers throw", async () => {
    const supervisor = supervisorFor();
    const seen: CommandResult[] = [];
    const thrown = new Error("observer threw");
    const rejected = new Error("observer rejected");
    const recorded = await supervisor.spawn(
      shellCommand("s1", "echo out; echo err >&2", { onTerminal: (result) => void seen.push(result) }),
    );
    const throwing = await supervisor.spawn(
      shellCommand("s1", "true", {
        onTerminal: () => {
          throw thrown;
        },
      }),
    );
    const rejecting = await supervisor.spawn(
      shellCommand("s2", "true", {
        onTerminal: () => new Promise((_, reject) => setTimeout(() => reject(rejected), 20)),
      }),
    );
    const ended = await supervisor.waitFor(recorded.commandId, { untilMs: 10_000 });
    // Called before anyone awaiting the end resumes.
    expect(seen).toHaveLength(1);
    expect(ended).toEqual({ state: "ended", result: seen[0] });
    expect(seen[0]).toMatchObject({ stdout: { text: "out\n" }, stderr: { text: "err\n" } });
    await supervisor.waitFor(throwing.commandId, { untilMs: 10_000 });
    await supervisor.waitFor(rejecting.commandId, { untilMs: 10_000 });
    expect(await supervisor.drainObservers("s1")).toEqual([
      { commandId: throwing.commandId, ownerKey: "s1", error: thrown },
    ]);
    expect(await supervisor.drainObservers("s1")).toEqual([]);
    expect(await supervisor.drainObservers()).toEqual([
      { commandId: rejecting.commandId, ownerKey: "s2", error: rejected },
    ]);
    expect(seen).toHaveLength(1);
  });

  it("installs one process exit listener while any command lives, and removes it after", async () => {
    const supervisor = supervisorFor();
    const before = process.listenerCount("exit");
    const first = await supervisor.spawn(shellCommand("s1", "sleep 30", { lifetime: "session" }));
    const second = await supervisor.spawn(shellCommand("s1", "sleep 30", { lifetime: "session" }));
    expect(process.listenerCount("exit")).toBe(before + 1);
    await supervisor.stop(first.commandId);
    expect(process.listenerCount("exit")).toBe(before + 1);
    await supervisor.stop(second.commandId);
    expect(process.listenerCount("exit")).toBe(before);
  });

  it("ends a wait early when its signal aborts, leaving the command running", async () => {
    const supervisor = supervisorFor();
    const { commandId } = await supervisor.spawn(shellCommand("s1", "sleep 30", { lifetime: "session" }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    expect(await supervisor.waitFor(commandId, { untilMs: 10_000, signal: controller.signal })).toEqual({
      state: "running",
      wokenBy: "signal",
    });
    expect(supervisor.get(commandId)?.state).toBe("running");
  });

  it("checks its options, requests and waits, naming the field", async () => {
    expect(createCommandSupervisor().limits).toEqual({
      maxOutputBytesPerStream: 65_536,
      executionTimeoutMs: 120_000,
      killGraceMs: 2_000,
      maxLiveCommands: 16,
    });
    for (const options of [
      { maxOutputBytesPerStream: 1_023 },
      { maxOutputBytesPerStream: 16_777_217 },
      { executionTimeoutMs: 0 },
      { killGraceMs: -1 },
      { maxLiveCommands: 1.5 },
      { timeoutMs: 5 },
    ]) {
      const failure = await failureOf(() => createCommandSupervisor(options as never));
      expect(failure).toMatchObject({
        code: "invalid_options",
        message: expect.stringContaining(Object.keys(options)[0] as string),
      });
    }
    const supervisor = supervisorFor();
    for (const request of [
      shellCommand("", "true"),
      shellCommand("s1", "true", { cwd: "relative/dir" }),
      shellCommand("s1", "true", { lifetime: "forever" as never }),
      shellCommand("s1", "true", { shell: { executable: "/bin/sh", arguments: "-c" as never } }),
      { ...shellCommand("s1", "true"), timeoutMs: 5 } as never,
    ]) {
      expect(await failureOf(() => supervisor.spawn(request))).toMatchObject({ code: "invalid_options" });
    }
    const { commandId } = await supervisor.spawn(shellCommand("s1", "true"));
    expect(await failureOf(() => supervisor.waitFor(commandId, { untilMs: -1 }))).toMatchObject({
      code: "invalid_options",
    });
  });
});
