import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { shellCommand, useSupervisors } from "../../../test/fixtures/command-processes.ts";
import { tempDirPerTest } from "../../../test/support/temp-dir.ts";
import type { CommandSupervisor } from "./index.js";

const supervisorFor = useSupervisors();
const directory = tempDirPerTest("castellan-command-output-");
const encoder = new TextEncoder();

/** Waits (up to 10 s) until the command's stdout has `bytes` bytes, reading no delta. */
async function untilStdoutBytes(supervisor: CommandSupervisor, commandId: string, bytes: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (supervisor.readOutput(commandId).stdout.bytes < bytes) {
    if (Date.now() > deadline)
      throw new Error(`stdout stayed at ${supervisor.readOutput(commandId).stdout.bytes} bytes.`);
    await supervisor.waitFor(commandId, { untilMs: 20 });
  }
}

describe("a command's output", () => {
  it("keeps the first and last halves of 10 MB, cut between multibyte characters", async () => {
    const supervisor = supervisorFor();
    // 10-byte lines "😀€é\n": the head's end (32,768) falls inside "é", the tail's start inside "😀".
    const { commandId } = await supervisor.spawn(
      shellCommand("s1", "yes '😀€é' | head -c 10000000; printf 'short' >&2"),
    );
    const waited = await supervisor.waitFor(commandId, { untilMs: 30_000 });
    if (waited.state !== "ended") throw new Error("The command did not end.");
    const { stdout, stderr } = waited.result;
    const expected = "😀€é\n".repeat(1_000_000);
    const head = stdout.text.slice(0, stdout.droppedAt ?? 0);
    const tail = stdout.text.slice(stdout.droppedAt ?? 0);
    expect(head).toBe(expected.slice(0, head.length));
    expect(tail).toBe(expected.slice(expected.length - tail.length));
    expect(stdout.text).not.toContain("\uFFFD");
    expect(encoder.encode(head).length).toBe(32_767);
    expect(encoder.encode(tail).length).toBe(32_766);
    expect(stdout).toMatchObject({ bytes: 10_000_000, droppedBytes: 10_000_000 - 32_767 - 32_766 });
    expect(stderr).toEqual({ text: "short", bytes: 5, droppedBytes: 0, droppedAt: null });
  });

  it("bounds each poll's delta the same way, and the next poll holds only later bytes", async () => {
    const supervisor = supervisorFor({ maxOutputBytesPerStream: 1_024 });
    const gate = join(directory.path, "go");
    const { commandId } = await supervisor.spawn(
      shellCommand("s1", `yes a | head -c 100000; until [ -e '${gate}' ]; do sleep 0.01; done; printf 'end'`),
    );
    await untilStdoutBytes(supervisor, commandId, 100_000);
    expect(supervisor.readDelta(commandId).stdout).toEqual({
      text: "a\n".repeat(256).repeat(2),
      bytes: 100_000,
      droppedBytes: 100_000 - 1_024,
      droppedAt: 512,
    });
    await writeFile(gate, "");
    await supervisor.waitFor(commandId, { untilMs: 10_000 });
    const last = supervisor.readDelta(commandId);
    expect(last.stdout).toEqual({ text: "end", bytes: 3, droppedBytes: 0, droppedAt: null });
    expect(last.result?.stdout).toMatchObject({ bytes: 100_003, droppedBytes: 100_003 - 1_024 });
    expect(last.result?.stdout.text.endsWith("a\nend")).toBe(true);
  });
});
