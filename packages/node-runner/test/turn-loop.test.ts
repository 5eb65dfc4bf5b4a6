import { defineAgent, defineTool, type RunEvent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createNodeRunner, openSession } from "../src/index.js";

const echoTool = defineTool({
  name: "echo",
  description: "Echo the text back",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  readOnly: true,
  execute: ({ text }: { text: string }) => `echo: ${text}`,
});

describe("the turn loop", () => {
  it("streams text, runs a tool call, and reports events in order", async () => {
    const model = scriptedModel([
      { text: "Let me echo.", toolCalls: [{ name: "echo", input: { text: "hi" } }] },
      { text: "Done: echo: hi", chunkSize: 5 },
    ]);
    const agent = defineAgent("test.echo", { model, instructions: "Be brief.", tools: [echoTool] });
    const session = await openSession({ agent });
    try {
      const run = session.run("Say hi");
      const events: RunEvent[] = [];
      for await (const event of run) events.push(event);
      const result = await run.result;
      expect(result.text).toBe("Done: echo: hi");
      expect(result.turns).toBe(2);
      expect(events.map((event) => event.kind)).toEqual([
        "run-start",
        "turn-start",
        "assistant-text-delta",
        "tool-call",
        "model-usage",
        "assistant-message",
        "tool-permission",
        "tool-start",
        "tool-end",
        "turn-end",
        "turn-start",
        "assistant-text-delta",
        "assistant-text-delta",
        "assistant-text-delta",
        "model-usage",
        "assistant-message",
        "turn-end",
        "run-end",
      ]);
      const second = model.requests[1];
      expect(second?.system).toBe("Be brief.");
      expect(second?.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
      expect(second?.messages[2]).toMatchObject({ role: "tool", toolCallId: "call_1", isError: false });
      model.assertComplete();
    } finally {
      await session.close();
    }
  });
});
