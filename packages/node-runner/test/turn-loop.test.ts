import { defineAgent, defineTool, type RunEvent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createMemorySessionStore, openSession } from "../src/index.js";

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

  it("settles an aborted Run even when the model adapter ignores its signal", async () => {
    let returned = false;
    const deaf = {
      specifier: "test/deaf",
      contextWindow: 1000,
      stream: () => ({
        [Symbol.asyncIterator]: () => ({
          next: () => new Promise<IteratorResult<never>>(() => undefined),
          return: async () => {
            returned = true;
            return { done: true as const, value: undefined };
          },
        }),
      }),
    };
    const session = await openSession({ agent: defineAgent("test.deaf", { model: deaf }) });
    try {
      const controller = new AbortController();
      const run = session.run("hello", { signal: controller.signal });
      setImmediate(() => controller.abort());
      await expect(run.result).rejects.toMatchObject({ code: "run_aborted" });
      expect(returned).toBe(true);
    } finally {
      await session.close();
    }
  });

  it("reports a Run aborted before it started with run-end alone and saves nothing", async () => {
    const model = scriptedModel([]);
    const store = createMemorySessionStore();
    const session = await openSession({ agent: defineAgent("test.early", { model }), id: "early", store });
    try {
      const run = session.run("hello", { signal: AbortSignal.abort() });
      const kinds: string[] = [];
      for await (const event of run) kinds.push(event.kind);
      expect(kinds).toEqual(["run-end"]);
      await expect(run.result).rejects.toMatchObject({ code: "run_aborted" });
      expect(model.requests).toHaveLength(0);
    } finally {
      await session.close();
    }
    const log = await store.open("early");
    expect(log.records).toEqual([]);
    await log.close();
  });

  it("settles an aborted Run even when an approval adapter ignores its signal", async () => {
    let asked = 0;
    const model = scriptedModel([{ toolCalls: [{ name: "write", input: {} }] }]);
    const write = defineTool({ name: "write", description: "Write", execute: () => "written" });
    const session = await openSession({
      agent: defineAgent("test.deaf-approval", { model, tools: [write] }),
      approval: {
        name: "deaf",
        apply: (host) =>
          host.registerApproval({
            request: () => {
              asked++;
              controller.abort();
              return new Promise(() => undefined);
            },
          }),
      },
    });
    const controller = new AbortController();
    try {
      const run = session.run("write it", { signal: controller.signal });
      await expect(run.result).rejects.toMatchObject({ code: "run_aborted" });
      expect(asked).toBe(1);
    } finally {
      await session.close();
    }
  });
});
