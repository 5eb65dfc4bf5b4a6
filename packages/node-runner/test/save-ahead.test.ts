import { defineAgent, defineTool, type RunEvent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createMemorySessionStore, openSession, type SessionRecord, type SessionStore } from "../src/index.js";
import { collect, latch, storeRecords } from "./support/index.ts";

const echoTool = defineTool({
  name: "echo",
  description: "Echoes its text",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  execute: ({ text }: { text: string }) => text,
});

/**
 * Wraps `inner` so that the append that settles a tool batch (its `tool-batch-end`) answers as
 * `settle` says: it may wait, or fail without saving anything. Like every store, it keeps
 * appends in order: each is saved after the one before it settled, and fails if that failed.
 */
function batchEndStore(inner: SessionStore, settle: (save: () => Promise<void>) => Promise<void>): SessionStore {
  return {
    async open(sessionId, options) {
      const log = await inner.open(sessionId, options);
      let last: Promise<void> = Promise.resolve();
      return {
        sessionId: log.sessionId,
        records: log.records,
        append(records: readonly SessionRecord[]) {
          const save = () => log.append(records);
          last = last.then(() => (records.some((record) => record.kind === "tool-batch-end") ? settle(save) : save()));
          return last;
        },
        close: () => log.close(),
      };
    },
  };
}

const kinds = (events: readonly RunEvent[]) => events.map((event) => event.kind);

describe("saving a tool batch's receipts ahead", () => {
  it("starts the next model call while the receipts sync, and reports them only once durable", async () => {
    const durable = latch();
    const inner = createMemorySessionStore();
    const store = batchEndStore(inner, async (save) => {
      await save();
      await durable.promise;
    });
    const seen: RunEvent[] = [];
    /** What the consumer had been told when the second model call began. */
    let seenAtSecondCall: string[] | undefined;
    const model = scriptedModel([
      { toolCalls: [{ name: "echo", input: { text: "hi" }, id: "e1" }] },
      (request) => {
        seenAtSecondCall = kinds(seen);
        // The call sees the tool's result even though its append is not durable yet.
        const last = request.messages.at(-1);
        durable.resolve();
        return { text: last?.role === "tool" ? `got ${JSON.stringify(last.content)}` : "no result" };
      },
    ]);
    const agent = defineAgent("test.save-ahead", { model, tools: [echoTool] });
    const session = await openSession({ agent, store, id: "s", permissions: "full-access" });
    try {
      const run = session.run("go");
      const events = await collect(run, (event) => seen.push(event));
      const result = await run.result;
      expect(result.text).toBe('got [{"type":"text","text":"hi"}]');
      expect(seenAtSecondCall).not.toContain("tool-end");
      expect(seenAtSecondCall).not.toContain("turn-end");
      expect(kinds(events)).toEqual([
        "run-start",
        "turn-start",
        "tool-call",
        "model-usage",
        "assistant-message",
        "tool-permission",
        "tool-start",
        "tool-end",
        "turn-end",
        "turn-start",
        "assistant-text-delta",
        "model-usage",
        "assistant-message",
        "turn-end",
        "run-end",
      ]);
    } finally {
      await session.close();
    }
    const saved = await storeRecords(inner, "s");
    expect(saved.map((record) => record.kind)).toContain("tool-end");
    expect(saved.at(-1)).toMatchObject({ kind: "run-end", status: "completed" });
  });

  it("a receipt append that fails ends the Run with its error and reports nothing built on it", async () => {
    const failure = new Error("the disk went away");
    const inner = createMemorySessionStore();
    const store = batchEndStore(inner, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      throw failure;
    });
    const model = scriptedModel([{ toolCalls: [{ name: "echo", input: { text: "hi" }, id: "e1" }] }, { text: "done" }]);
    const agent = defineAgent("test.save-ahead", { model, tools: [echoTool] });
    const session = await openSession({ agent, store, id: "s", permissions: "full-access" });
    try {
      const run = session.run("go");
      const events = await collect(run);
      await expect(run.result).rejects.toBe(failure);
      expect(kinds(events)).toEqual([
        "run-start",
        "turn-start",
        "tool-call",
        "model-usage",
        "assistant-message",
        "tool-permission",
        "tool-start",
        "run-end",
      ]);
      expect(events.at(-1)).toMatchObject({ kind: "run-end", status: "failed" });
      // The Session refuses further work: its history holds records the store never saved.
      await expect(session.run("again").result).rejects.toBe(failure);
    } finally {
      await session.close();
    }
    // Nothing after the failed append reached the store: reopened, the Run is interrupted in its tool call.
    const saved = await storeRecords(inner, "s");
    expect(saved.map((record) => record.kind)).toEqual([
      "session-open",
      "run-start",
      "assistant-message",
      "tool-batch-start",
      "tool-start",
    ]);
  });
});
