// A batch of only read-only calls needs no durable intent before it runs: its intents and
// receipts are saved ahead, so no sync stands between the model's answer and its tools. A
// batch with any other tool keeps the rule that a tool runs only once its intent is durable.
// Either way, no event is reported before the record it reports is durable.
import { defineAgent, defineTool, type RunEvent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createMemorySessionStore, openSession, type SessionRecord, type SessionStore } from "../src/index.js";
import { collect, latch } from "./support/index.ts";

/** A store whose append of tool intents becomes durable only when `release` is called. */
function slowIntents(inner: SessionStore) {
  const gate = latch();
  let heldIntents = 0;
  const store: SessionStore = {
    async open(sessionId, options) {
      const log = await inner.open(sessionId, options);
      let last: Promise<void> = Promise.resolve();
      return {
        sessionId: log.sessionId,
        records: log.records,
        append(records: readonly SessionRecord[]) {
          const holds = records.some((record) => record.kind === "tool-start");
          last = last.then(async () => {
            await log.append(records);
            if (holds) {
              heldIntents++;
              await gate.promise;
            }
          });
          return last;
        },
        close: () => log.close(),
      };
    },
  };
  return {
    store,
    release: () => gate.resolve(),
    get heldIntents() {
      return heldIntents;
    },
  };
}

function tools(ran: string[], seen: RunEvent[]) {
  const look = defineTool({
    name: "look",
    description: "Look",
    readOnly: true,
    execute: () => {
      ran.push(`look (events so far: ${seen.map((event) => event.kind).join(" ")})`);
      return "seen";
    },
  });
  const write = defineTool({ name: "write", description: "Write", execute: () => void ran.push("write") });
  return [look, write];
}

describe("a batch of only read-only calls", () => {
  it("runs its tools before its intents are durable, and reports them only once they are", async () => {
    const slow = slowIntents(createMemorySessionStore());
    const ran: string[] = [];
    const seen: RunEvent[] = [];
    const model = scriptedModel([
      {
        toolCalls: [
          { id: "l1", name: "look", input: {} },
          { id: "l2", name: "look", input: {} },
        ],
      },
      { text: "done" },
    ]);
    const session = await openSession({
      agent: defineAgent("test.read-only-ahead", { model, tools: tools(ran, seen) }),
      store: slow.store,
    });
    try {
      const run = session.run("look twice");
      const consumed = (async () => {
        for await (const event of run) seen.push(event);
      })();
      // Both tools ran, and the next model call began, while the intents' append still waited.
      await waitFor(() => model.requests.length === 2);
      expect(slow.heldIntents).toBe(1);
      expect(ran).toHaveLength(2);
      // Nothing after the model's answer was reported: the answer rides with the held intents.
      expect(seen.map((event) => event.kind)).not.toContain("assistant-message");
      expect(seen.map((event) => event.kind)).not.toContain("tool-start");
      slow.release();
      await consumed;
      expect((await run.result).text).toBe("done");
      const kinds = seen.map((event) => event.kind);
      expect(kinds.indexOf("assistant-message")).toBeLessThan(kinds.indexOf("tool-start"));
      expect(kinds.filter((kind) => kind === "tool-end")).toHaveLength(2);
    } finally {
      await session.close();
    }
  });
});

describe("a batch with a tool that has effects", () => {
  it("runs no tool before the intents are durable", async () => {
    const slow = slowIntents(createMemorySessionStore());
    const ran: string[] = [];
    const seen: RunEvent[] = [];
    const model = scriptedModel([
      {
        toolCalls: [
          { id: "l1", name: "look", input: {} },
          { id: "w1", name: "write", input: {} },
        ],
      },
      { text: "done" },
    ]);
    const session = await openSession({
      agent: defineAgent("test.read-only-ahead", { model, tools: tools(ran, seen) }),
      store: slow.store,
      permissions: "full-access",
    });
    try {
      const run = session.run("look, then write");
      const events = collect(run);
      await waitFor(() => slow.heldIntents === 1);
      // The look's intent is held: even the read-only call of a mixed batch waits for it.
      await new Promise((resolve) => setImmediate(resolve));
      expect(ran).toEqual([]);
      expect(model.requests).toHaveLength(1);
      slow.release();
      await events;
      expect((await run.result).text).toBe("done");
      expect(ran.map((entry) => entry.split(" ")[0])).toEqual(["look", "write"]);
    } finally {
      await session.close();
    }
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 1_000 && !condition(); tries++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(condition()).toBe(true);
}
