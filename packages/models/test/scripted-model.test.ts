import type { ModelRequest } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import { ScriptExhaustedError, scriptedModel } from "../src/testing/index.js";
import { userRequest } from "./support/request.js";
import { neverAborts as signal } from "./support/signal.js";
import { collect } from "./support/stream.js";

const request = (text: string): ModelRequest => userRequest(text, { system: "sys" });

describe("scriptedModel", () => {
  it("answers each request with the next step and records the requests", async () => {
    const model = scriptedModel(
      [
        { text: "hello", chunkSize: 2, usage: { inputTokens: 3, outputTokens: 1 } },
        {
          toolCalls: [
            { name: "lookup", input: { key: "a" } },
            { name: "lookup", input: { key: "b" }, id: "mine" },
          ],
        },
      ],
      { specifier: "test/scripted", contextWindow: 5000 },
    );
    expect(model.specifier).toBe("test/scripted");
    expect(model.contextWindow).toBe(5000);
    const first = await collect(model.stream(request("one"), { signal: signal() }));
    expect(first).toEqual([
      { type: "text-delta", text: "he" },
      { type: "text-delta", text: "ll" },
      { type: "text-delta", text: "o" },
      { type: "usage", usage: { inputTokens: 3, outputTokens: 1 } },
      { type: "finish", stopReason: "end" },
    ]);
    const second = await collect(model.stream(request("two"), { signal: signal() }));
    expect(second.filter((event) => event.type === "tool-call")).toEqual([
      { type: "tool-call", toolCall: { id: "call_1", name: "lookup", input: { key: "a" } } },
      { type: "tool-call", toolCall: { id: "mine", name: "lookup", input: { key: "b" } } },
    ]);
    expect(second.at(-1)).toEqual({ type: "finish", stopReason: "tool-calls" });
    expect(model.requests.map((sent) => sent.messages[0])).toEqual([
      { role: "user", content: [{ type: "text", text: "one" }] },
      { role: "user", content: [{ type: "text", text: "two" }] },
    ]);
    model.assertComplete();
  });

  it("answers from a function of the request", async () => {
    const model = scriptedModel([(sent, call) => ({ text: `${call}:${sent.system}` })]);
    const events = await collect(model.stream(request("x"), { signal: signal() }));
    expect(events[0]).toEqual({ type: "text-delta", text: "1:sys" });
  });

  it("ends a request past the script with a typed error, and reports unused steps", async () => {
    const model = scriptedModel([{ text: "only" }, { text: "unused" }]);
    expect(() => model.assertComplete()).toThrow(ScriptExhaustedError);
    await collect(model.stream(request("a"), { signal: signal() }));
    await collect(model.stream(request("b"), { signal: signal() }));
    const past = await collect(model.stream(request("c"), { signal: signal() }));
    expect(past).toHaveLength(1);
    expect(past[0]?.type).toBe("error");
    expect((past[0] as { error: Error }).error).toBeInstanceOf(ScriptExhaustedError);
    expect((past[0] as unknown as { error: ScriptExhaustedError }).error.code).toBe("script_exhausted");
    expect(model.remaining).toBe(0);
  });

  it("ends with the step's error, and a hanging step ends when aborted", async () => {
    const failing = scriptedModel([{ text: "partial", error: new Error("overloaded") }]);
    const events = await collect(failing.stream(request("a"), { signal: signal() }));
    expect(events.map((event) => event.type)).toEqual(["text-delta", "error"]);

    const hanging = scriptedModel([{ text: "wait", hang: true }]);
    const controller = new AbortController();
    const pending = collect(hanging.stream(request("a"), { signal: controller.signal }));
    await Promise.resolve();
    controller.abort();
    const ended = await pending;
    expect(ended.at(-1)?.type).toBe("error");
  });
});
