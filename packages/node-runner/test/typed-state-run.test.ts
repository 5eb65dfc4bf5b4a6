// A defineState agent through a real Runner: the typed tool's writes commit with its batch, the
// next turn's section reads them, and the Session's state holds the declared keys.
import { defineAgent, defineState } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { expect, it } from "vitest";
import { openSession } from "../src/index.js";
import { drain } from "./support/index.ts";

it("runs a typed-state tool: its writes commit and the next turn's section reads them", async () => {
  const reporter = defineState({ updates: 0, notes: [] as string[] });
  const record = reporter.defineTool<{ note: string }>({
    name: "record_update",
    description: "Record an update",
    inputSchema: { type: "object", properties: { note: { type: "string" } }, required: ["note"] },
    execute(input, ctx) {
      ctx.setState((state) => ({ updates: state.updates + 1, notes: [...state.notes, input.note] }));
      return `Recorded update ${ctx.state.updates}.`;
    },
  });
  const model = scriptedModel([{ toolCalls: [{ name: "record_update", input: { note: "first" } }] }, { text: "done" }]);
  const agent = defineAgent("test.typed-run", {
    model,
    state: reporter.state,
    instructions: { progress: (ctx) => `Updates so far: ${ctx.state.updates}.` },
    tools: [record],
  });
  const session = await openSession({ agent, permissions: "full-access" });
  try {
    const { events } = await drain(session.run("record"));
    const end = events.find((event) => event.kind === "tool-end");
    expect(end?.kind === "tool-end" && end.result.content).toEqual([{ type: "text", text: "Recorded update 1." }]);
    expect(JSON.stringify(model.requests[1])).toContain("Updates so far: 1.");
    expect(session.inspect().state).toMatchObject({ updates: 1, notes: ["first"] });
  } finally {
    await session.close();
  }
});
