// Provider-hosted tools as Session facts: an adapter's `hosted-tool` events become
// hosted-tool-start / hosted-tool-end Run events in stream order, a bounded
// `hosted-tool-activity` record in the same append as the turn's assistant-message, and frozen
// `ctx.hostedToolCalls(name)` entries kept across Runs, compaction and a reopen (which searches
// nothing). Usage.webSearchRequests is totalled. An agent that does not declare the hosted tool
// never exposes it.
import { defineAgent, defineTool, type HostedToolCall, hostTool, type RunEvent } from "@castellan/harness";
import { type ScriptedStep, scriptedModel } from "@castellan/models/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  createFileSessionStore,
  createNodeRunner,
  type NodeRunnerPlugin,
  type SessionRecord,
  type SessionStore,
} from "../src/index.js";
import { collect, fileRecords, plugin, tempDirPerTest } from "./support/index.ts";

const temp = tempDirPerTest("castellan-hosted-");
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const webSearch: NodeRunnerPlugin = plugin("search", (host) =>
  host.registerHostedTool({ name: "web_search", hosted: { kind: "web-search", maxUses: 2 } }),
);

/** A file store that also keeps each append's records, to see what was saved together. */
function recordingStore(directory: string): { store: SessionStore; appends: SessionRecord[][] } {
  const inner = createFileSessionStore({ directory });
  const appends: SessionRecord[][] = [];
  return {
    appends,
    store: {
      async open(sessionId, options) {
        const log = await inner.open(sessionId, options);
        return {
          sessionId: log.sessionId,
          records: log.records,
          append: (records) => {
            appends.push([...records]);
            return log.append(records);
          },
          close: () => log.close(),
        };
      },
    },
  };
}

const seen: HostedToolCall[][] = [];
const readSearches = defineTool({
  name: "read_searches",
  description: "Reports the web searches of this Session",
  readOnly: true,
  execute: (_input, ctx) => {
    const calls = ctx.hostedToolCalls("web_search");
    seen.push(calls as HostedToolCall[]);
    return JSON.stringify(calls);
  },
});

const searchStep: ScriptedStep = {
  hosted: [
    { callId: "srvtoolu_1", kind: "web-search", status: "started", queries: ["castellan harness"], sources: [] },
    {
      callId: "srvtoolu_1",
      kind: "web-search",
      status: "completed",
      queries: ["castellan harness"],
      sources: [{ url: "https://example.com/a", title: "A" }, { url: "https://example.com/b" }],
    },
    { callId: "srvtoolu_2", kind: "web-search", status: "started", queries: ["second"], sources: [] },
    {
      callId: "srvtoolu_2",
      kind: "web-search",
      status: "failed",
      queries: ["second"],
      sources: [],
      errorCode: "max_uses_exceeded",
    },
  ],
  text: "Found it.",
  usage: { inputTokens: 10, outputTokens: 5, webSearchRequests: 2 },
};

async function open(steps: readonly ScriptedStep[], options: { directory?: string; declare?: boolean } = {}) {
  const directory = options.directory ?? temp.path;
  const recorded = recordingStore(directory);
  const model = scriptedModel(steps);
  const runner = await createNodeRunner({
    agent: defineAgent("test.hosted-facts", {
      model,
      tools: [...(options.declare === false ? [] : [hostTool("web_search")]), readSearches],
    }),
    permissions: "full-access",
    plugins: [webSearch, { name: "store", apply: (host) => host.registerSessionStore(recorded.store) }],
  });
  cleanups.push(() => runner.close());
  const session = await runner.createSession({ id: "hosted" });
  return { model, runner, session, ...recorded };
}

describe("hosted tool activity", () => {
  it("reports start and end in stream order and saves bounded facts with the assistant message", async () => {
    const { session, appends, model } = await open([searchStep]);
    const events = await collect(session.run("search the web"));
    const kinds = events.map((event) => event.kind);
    expect(kinds.slice(kinds.indexOf("turn-start"), kinds.indexOf("assistant-message") + 1)).toEqual([
      "turn-start",
      "hosted-tool-start",
      "hosted-tool-end",
      "hosted-tool-start",
      "hosted-tool-end",
      "assistant-text-delta",
      "model-usage",
      "assistant-message",
    ]);
    expect(events.filter((event) => event.kind.startsWith("hosted-tool"))).toEqual([
      {
        kind: "hosted-tool-start",
        runId: expect.any(String),
        turn: 1,
        callId: "srvtoolu_1",
        toolName: "web_search",
        hostedKind: "web-search",
        queries: ["castellan harness"],
      },
      expect.objectContaining({
        kind: "hosted-tool-end",
        callId: "srvtoolu_1",
        ok: true,
        sources: [{ url: "https://example.com/a", title: "A" }, { url: "https://example.com/b" }],
      }),
      expect.objectContaining({ kind: "hosted-tool-start", callId: "srvtoolu_2" }),
      expect.objectContaining({
        kind: "hosted-tool-end",
        callId: "srvtoolu_2",
        ok: false,
        errorCode: "max_uses_exceeded",
      }),
    ]);
    expect(model.requests[0]?.hostedTools).toEqual([
      { name: "web_search", hosted: { kind: "web-search", maxUses: 2 } },
    ]);

    const withAnswer = appends.find((batch) => batch.some((record) => record.kind === "assistant-message"));
    expect(withAnswer?.map((record) => record.kind)).toEqual([
      "assistant-message",
      "hosted-tool-activity",
      "hosted-tool-activity",
      "run-end",
    ]);
    expect(withAnswer?.[2]).toEqual({
      kind: "hosted-tool-activity",
      runId: expect.any(String),
      turn: 1,
      callId: "srvtoolu_2",
      toolName: "web_search",
      hostedKind: "web-search",
      ok: false,
      queries: ["second"],
      sources: [],
      errorCode: "max_uses_exceeded",
    });
    expect(session.usage().total.webSearchRequests).toBe(2);
  });

  it("keeps at most 8 queries, 50 sources and 300-character titles, and ends unfinished calls as failed", async () => {
    const title = `${"t".repeat(299)}😀tail`;
    const { session } = await open([
      {
        hosted: [
          {
            callId: "ws_1",
            kind: "web-search",
            status: "completed",
            queries: Array.from({ length: 12 }, (_, index) => `query ${index}`),
            sources: Array.from({ length: 70 }, (_, index) => ({ url: `https://example.com/${index}`, title })),
          },
          { callId: "ws_2", kind: "web-search", status: "started", queries: ["never finished"], sources: [] },
        ],
        text: "partial",
      },
    ]);
    const events = await collect(session.run("go"));
    const ends = events.filter(
      (event): event is Extract<RunEvent, { kind: "hosted-tool-end" }> => event.kind === "hosted-tool-end",
    );
    expect(ends.map((end) => [end.callId, end.ok])).toEqual([
      ["ws_1", true],
      ["ws_2", false],
    ]);
    const first = ends[0];
    expect(first?.queries).toHaveLength(8);
    expect(first?.sources).toHaveLength(50);
    // Cut before the emoji's second half, never inside a surrogate pair.
    expect(first?.sources[0]?.title).toBe("t".repeat(299));
    // The end without a start was opened first.
    expect(
      events.filter((event) => event.kind === "hosted-tool-start").map((event) => (event as { callId: string }).callId),
    ).toEqual(["ws_1", "ws_2"]);
    const records = (await fileRecords(temp.path, "hosted")).filter((record) => record.kind === "hosted-tool-activity");
    expect(records.map((record) => [record.callId, record.ok, record.queries.length, record.sources.length])).toEqual([
      ["ws_1", true, 8, 50],
      ["ws_2", false, 1, 0],
    ]);
  });

  it("gives tools frozen ctx.hostedToolCalls across Runs, compaction and a reopen that searches nothing", async () => {
    seen.length = 0;
    const first = await open([
      searchStep,
      { toolCalls: [{ name: "read_searches", input: {} }] },
      { text: "read" },
      { text: "summary of it all" },
    ]);
    await first.session.run("search").result;
    await first.session.run("what did you search?").result;
    expect(seen[0]?.map((call) => [call.callId, call.ok, call.turn])).toEqual([
      ["srvtoolu_1", true, 1],
      ["srvtoolu_2", false, 1],
    ]);
    expect(Object.isFrozen(seen[0])).toBe(true);
    expect(Object.isFrozen(seen[0]?.[0]?.sources)).toBe(true);
    expect(await first.session.compact()).toBeDefined();
    await first.runner.close();

    const second = await open([{ toolCalls: [{ name: "read_searches", input: {} }] }, { text: "still there" }]);
    expect(second.model.requests).toHaveLength(0);
    await second.session.run("and now?").result;
    expect(seen[1]).toEqual(seen[0]);
    expect(second.model.requests[0]?.messages[0]?.role).toBe("user");
  });

  it("never exposes a hosted tool the agent does not declare", async () => {
    const { session, model } = await open([{ text: "no search" }], { declare: false });
    await session.run("hi").result;
    expect(model.requests[0]?.hostedTools).toEqual([]);
  });

  it("refuses a malformed hosted-tool event as a model failure", async () => {
    const { session } = await open([
      { hosted: [{ callId: "", kind: "web-search", status: "started", queries: [], sources: [] }], text: "x" },
    ]);
    await expect(session.run("go").result).rejects.toMatchObject({ code: "model_failed" });
  });
});
