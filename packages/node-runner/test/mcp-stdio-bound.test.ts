// A stdio MCP server's messages are lines, read with a bound: the line reader on its own
// (split, carriage returns, the bound exactly, linear work), then a real fixture server that
// floods 128 MiB without a newline in the middle of a call, in a Session with a second server.
import { defineAgent, type JsonValue, type RunEvent } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { LineReader, maxMessageBytes } from "../src/capabilities/mcp/line-reader.js";
import { createNodeRunner, type McpOptions, mcp } from "../src/index.js";
import { cleanupAfterEach, drain, textOf } from "./support/index.ts";
import { floodServerEntry } from "./support/mcp.ts";

const cleanups = cleanupAfterEach();
const mebibyte = 1024 * 1024;

function lines(reader: LineReader, ...chunks: string[]): { lines: string[]; within: boolean[] } {
  const seen: string[] = [];
  const within = chunks.map((chunk) => reader.push(Buffer.from(chunk), (line) => seen.push(line)));
  return { lines: seen, within };
}

describe("LineReader", () => {
  it("splits lines across chunks, drops a carriage return before the newline and keeps an unfinished tail", () => {
    const reader = new LineReader();
    expect(lines(reader, '{"a":', '1}\r\n{"b":2}\n{"c"', ":3}\n\n{")).toEqual({
      lines: ['{"a":1}', '{"b":2}', '{"c":3}', ""],
      within: [true, true, true],
    });
    expect(reader.pendingBytes).toBe(1);
  });

  it("takes a line of exactly the bound and refuses one byte more, then reads nothing", () => {
    expect(maxMessageBytes).toBe(10 * mebibyte);
    const exact = new LineReader(8);
    expect(lines(exact, "1234", "5678\n")).toEqual({ lines: ["12345678"], within: [true, true] });
    const whole = new LineReader(8);
    expect(lines(whole, "123456789\nafter\n")).toEqual({ lines: [], within: [false] });
    const split = new LineReader(8);
    expect(lines(split, "12345", "6789", "\nafter\n")).toEqual({ lines: [], within: [true, false, false] });
    expect(split.overflowed).toBe(true);
    expect(split.pendingBytes).toBe(0);
  });

  it("is linear in the bytes pushed: 10 MiB in 256-byte chunks, one line, well under a second", () => {
    const reader = new LineReader();
    const chunk = Buffer.alloc(256, "x");
    const started = performance.now();
    for (let sent = 0; sent + chunk.length <= maxMessageBytes; sent += chunk.length)
      reader.push(chunk, () => undefined);
    let line = "";
    reader.push(Buffer.from("\n"), (text) => (line = text));
    // A reader that joins the pending bytes with each chunk copies ~200 GB here.
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(line.length).toBe(maxMessageBytes);
  });
});

const server = (serverName: string, extra: Partial<McpOptions> = {}) =>
  mcp({
    serverName,
    transport: "stdio",
    command: process.execPath,
    args: [floodServerEntry],
    ...extra,
  } as McpOptions);
const call = (name: string, input: JsonValue = {}): ScriptedStepSource => ({
  toolCalls: [{ name, input: input as never }],
});

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("a stdio server that floods its stdout without a newline", () => {
  it("fails the call with mcp_message_too_large, is stopped, costs the host under 64 MiB, and the other server answers", async () => {
    const model = scriptedModel([
      call("mcp__flood__pid"),
      call("mcp__calm__echo", { text: "before" }),
      call("mcp__flood__flood"),
      call("mcp__calm__echo", { text: "after" }),
      call("mcp__flood__echo", { text: "again" }),
      { text: "done" },
    ]);
    const agent = defineAgent("test.mcp-flood", { model, capabilities: [server("flood"), server("calm")] });
    const runner = await createNodeRunner({ agent, permissions: "full-access" });
    cleanups.push(() => runner.close());
    const session = cleanups.closeLater(await runner.createSession());
    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 2);
    const ends: { text: string; isError: boolean }[] = [];
    let events: readonly RunEvent[];
    try {
      ({ events } = await drain(session.run("go")));
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    for (const event of events) {
      if (event.kind === "tool-end") ends.push({ text: textOf(event.result), isError: event.result.isError });
    }
    const [pid, before, flooded, after, again] = ends;
    expect(before).toEqual({ text: "before", isError: false });
    expect(flooded?.isError).toBe(true);
    expect(flooded?.text).toMatch(/^mcp_message_too_large: The MCP server "flood" sent a message over 10485760 bytes/);
    expect(after).toEqual({ text: "after", isError: false });
    expect(again?.isError).toBe(true);
    expect(again?.text).toMatch(/^mcp_server_unavailable: .*over 10485760 bytes and was stopped/);
    expect(peak - baseline).toBeLessThan(64 * mebibyte);
    expect(pidAlive(Number(pid?.text))).toBe(false);
  }, 60_000);

  it("answers the other server's call within its normal time after the flood", async () => {
    const model = scriptedModel([
      call("mcp__calm__echo", { text: "warm" }),
      call("mcp__calm__echo", { text: "normal" }),
      call("mcp__flood__flood"),
      call("mcp__calm__echo", { text: "after" }),
      { text: "done" },
    ]);
    const agent = defineAgent("test.mcp-flood-timing", { model, capabilities: [server("flood"), server("calm")] });
    const runner = await createNodeRunner({ agent, permissions: "full-access" });
    cleanups.push(() => runner.close());
    const session = cleanups.closeLater(await runner.createSession());
    const started = new Map<string, number>();
    const durations: number[] = [];
    for await (const event of session.run("go")) {
      if (event.kind === "tool-start") started.set(event.toolCallId, performance.now());
      if (event.kind === "tool-end") durations.push(performance.now() - (started.get(event.toolCallId) ?? 0));
    }
    const [, normal, , after] = durations as [number, number, number, number];
    // "Normal" with room for a loaded machine: a stuck transport would take the call timeout (60 s).
    expect(after).toBeLessThan(Math.max(10 * normal, 1_000));
  }, 60_000);
});
