// An MCP HTTP server that reflects the Authorization header in a 500: whether it answers so at
// initialize (the Session's open fails) or at a tool call (the model reads an error result),
// the token is in none of what the host gets: the error, its cause chain, util.inspect of it,
// the Run's events and the Session's saved records.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { inspect } from "node:util";
import { defineAgent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createFileSessionStore, createNodeRunner, mcp } from "../src/index.js";
import { cleanupAfterEach, drain, extraTempDirs, rejection, storePlugin, textOf } from "./support/index.ts";
import { startReflectingMcpServer } from "./support/reflecting-mcp-server.ts";

const cleanups = cleanupAfterEach();
const extraDir = extraTempDirs();
const token = "tok-reflected-5f2a9c";

/** Every text an error carries: message, stack, own string fields, down its causes and `errors`. */
export function errorTexts(error: unknown, seen = new Set<unknown>()): string[] {
  if (error === null || typeof error !== "object" || seen.has(error)) return [];
  seen.add(error);
  const texts: string[] = [];
  for (const key of Object.getOwnPropertyNames(error)) {
    const value = (error as Record<string, unknown>)[key];
    if (typeof value === "string") texts.push(value);
    else if (Array.isArray(value)) for (const entry of value) texts.push(...errorTexts(entry, seen), String(entry));
    else texts.push(...errorTexts(value, seen));
  }
  return texts;
}

async function storedText(directory: string): Promise<string> {
  const texts = await Promise.all((await readdir(directory)).map((file) => readFile(join(directory, file), "utf8")));
  return texts.join("\n");
}

async function setup(mode: "initialize" | "call") {
  const server = await startReflectingMcpServer(mode);
  cleanups.push(() => server.close());
  const directory = await extraDir("castellan-mcp-redaction-");
  const model = scriptedModel([{ toolCalls: [{ name: "mcp__reflect__echo", input: {} }] }, { text: "done" }]);
  const agent = defineAgent("test.mcp-redaction", {
    model,
    capabilities: [
      mcp({
        serverName: "reflect",
        transport: "http",
        url: server.url,
        headers: { Authorization: `Bearer ${token}` },
        secretKeys: ["Authorization"],
        startupTimeoutMs: 10_000,
      }),
    ],
  });
  const runner = await createNodeRunner({
    agent,
    permissions: "full-access",
    plugins: [storePlugin(createFileSessionStore({ directory }))],
  });
  cleanups.push(() => runner.close());
  return { runner, directory };
}

describe("an MCP HTTP server reflecting the Authorization header in a 500", () => {
  it("at initialize: the open's error, its cause chain and util.inspect of it hold no token", async () => {
    const { runner, directory } = await setup("initialize");
    const error = await rejection(runner.createSession({ id: "reflected-open" }));
    expect(error).toMatchObject({ code: expect.any(String) });
    const texts = errorTexts(error);
    expect(texts.join("\n")).toContain("[redacted]");
    for (const text of texts) expect(text).not.toContain(token);
    expect(inspect(error, { depth: 30 })).not.toContain(token);
    expect(inspect(error, { depth: 30, showHidden: true })).not.toContain(token);
    expect(inspect({ failure: error }, { depth: 30 })).not.toContain(token);
    expect(await storedText(directory)).not.toContain(token);
  });

  it("at a tool call: the error result, the Run's events and the saved records hold no token", async () => {
    const { runner, directory } = await setup("call");
    const session = await runner.createSession({ id: "reflected-call" });
    const { events, error } = await drain(session.run("go"));
    expect(error).toBeUndefined();
    const end = events.find((event) => event.kind === "tool-end");
    expect(end?.kind === "tool-end" && end.result.isError).toBe(true);
    const text = end?.kind === "tool-end" ? textOf(end.result) : "";
    expect(text).toMatch(/^mcp_call_failed: .*rejected the header/s);
    expect(text).toContain("[redacted]");
    expect(JSON.stringify(events)).not.toContain(token);
    expect(inspect(events, { depth: 30 })).not.toContain(token);
    await session.close();
    const stored = await storedText(directory);
    expect(stored).toContain("[redacted]");
    expect(stored).not.toContain(token);
  });
});
