import { defineAgent, defineTool } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createMemorySessionStore, openSession, type SessionStore } from "../src/index.js";
import { stoppingStore } from "./support/index.ts";

// A process that dies after the receipt of a state-writing call but before its batch settles:
// the receipt says the call succeeded, so the resumed batch must commit what it wrote.

/** A store that saves appends until one starts the call `toolCallId`, then never answers again. */
function dyingBefore(inner: SessionStore, toolCallId: string): { store: SessionStore; died: Promise<void> } {
  const { store, stopped } = stoppingStore(inner, (records) =>
    records.some((record) => record.kind === "tool-start" && record.toolCall.id === toolCallId),
  );
  return { store, died: stopped };
}

const bump = defineTool({
  name: "bump",
  description: "Add one to the counter",
  execute: (_input, ctx) => {
    ctx.setState((state) => ({ count: (state.count as number) + 1 }));
    return `bumped to ${String(ctx.state.count)}`;
  },
});
const hold = defineTool({ name: "hold", description: "Wait", execute: () => "held" });

describe("resuming a batch interrupted after a state-writing call settled", () => {
  it("commits the write its receipt reported", async () => {
    const inner = createMemorySessionStore();
    const calls = [
      { id: "b1", name: "bump", input: {} },
      { id: "h1", name: "hold", input: {} },
    ];
    const agent = (model: ReturnType<typeof scriptedModel>) =>
      defineAgent("test.resume-state", { model, state: { count: 4 }, tools: [bump, hold] });

    // The dying process: bump settles and its receipt is saved; the process dies before hold starts.
    const dying = dyingBefore(inner, "h1");
    const first = await openSession({
      agent: agent(scriptedModel([{ toolCalls: calls }])),
      id: "s",
      store: dying.store,
      permissions: "full-access",
    });
    first.run("go").result.catch(() => undefined);
    await dying.died;

    const model = scriptedModel([{ text: "done" }, { text: "again" }]);
    const second = await openSession({ agent: agent(model), id: "s", store: inner, permissions: "full-access" });
    try {
      expect(second.interruptedRun()?.unsettled.map((call) => [call.toolCallId, call.state])).toEqual([
        ["h1", "not-started"],
      ]);
      expect(second.inspect().state).toEqual({ count: 4 });
      const result = await second.resume().result;
      expect(result.text).toBe("done");
      // bump's receipt said "bumped to 5": the resumed batch commits its write with the batch.
      expect(second.inspect().state).toEqual({ count: 5 });
      expect(second.inspect().stateWrites).toMatchObject([{ source: "tool", changes: { count: 5 } }]);
      const tools = model.requests[0]?.messages.filter((message) => message.role === "tool");
      expect(tools?.map((message) => message.content)).toEqual([
        [{ type: "text", text: "bumped to 5" }],
        [{ type: "text", text: "held" }],
      ]);
    } finally {
      await second.close();
    }
  });
});
