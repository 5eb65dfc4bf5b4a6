import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { defineAgent, defineTool } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createFileSessionStore, createMemorySessionStore, openSession, type SessionStore } from "../src/index.js";
import { stoppingStore, tempDirPerTest } from "./support/index.ts";

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

describe("a crash that cuts the batch's last save at any byte", () => {
  const temp = tempDirPerTest("castellan-resume-cut-");
  const holdAndMark = defineTool({
    name: "hold",
    description: "Wait, then mark",
    execute: (_input, ctx) => {
      ctx.setState({ held: true });
      return "held";
    },
  });
  const agent = (model: ReturnType<typeof scriptedModel>) =>
    defineAgent("test.resume-state", { model, state: { count: 4, held: false }, tools: [bump, holdAndMark] });

  it("recovers, from every cut, the writes of exactly the calls whose receipts survived", async () => {
    // A whole log: bump settles in its own append, hold's receipt shares the last append with the batch's end.
    const whole = join(temp.path, "whole");
    const first = await openSession({
      agent: agent(
        scriptedModel([
          {
            toolCalls: [
              { id: "b1", name: "bump", input: {} },
              { id: "h1", name: "hold", input: {} },
            ],
          },
          { text: "done" },
        ]),
      ),
      id: "s",
      store: createFileSessionStore({ directory: whole }),
      permissions: "full-access",
    });
    await first.run("go").result;
    await first.close();
    const lines = (await readFile(join(whole, "s.jsonl"), "utf8")).split("\n");
    const kindOf = (line: string) => (line ? (JSON.parse(line).record.kind as string) : "");
    const receipt = lines.findIndex((line) => line.includes('"kind":"tool-end"') && line.includes('"toolCallId":"h1"'));
    expect(kindOf(lines[receipt + 1] ?? "")).toBe("tool-batch-end");
    const before = `${lines.slice(0, receipt).join("\n")}\n`;
    const lastAppend = `${lines[receipt]}\n${lines[receipt + 1]}\n`;
    const receiptBytes = (lines[receipt]?.length ?? 0) + 1;

    let cuts = 0;
    for (let cut = 0; cut <= lastAppend.length; cut++) {
      const directory = join(temp.path, `cut-${cut}`);
      await mkdir(directory);
      await writeFile(join(directory, "s.jsonl"), before + lastAppend.slice(0, cut));
      const model = scriptedModel([{ text: "resumed" }]);
      const session = await openSession({
        agent: agent(model),
        id: "s",
        store: createFileSessionStore({ directory }),
        permissions: "full-access",
      });
      try {
        await session.resume().result;
        // bump's receipt is always there; hold's write is recovered exactly when its receipt is.
        const held = cut >= receiptBytes;
        expect({ cut, state: session.inspect().state }).toEqual({ cut, state: { count: 5, held } });
      } finally {
        await session.close();
      }
      cuts++;
    }
    expect(cuts).toBe(lastAppend.length + 1);
  });
});
