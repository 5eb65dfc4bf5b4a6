// Models of the previous specification (LanguageModelV3) work through the same adapter.
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { ModelRequest } from "@castellan/harness";
import { aiSdk } from "@castellan/models/ai-sdk";
import { describe, expect, it } from "vitest";
import { collect } from "./support/fake-language-model.js";

const PNG = "iVBORw0KGgo=";

function v3Model(parts: LanguageModelV3StreamPart[]): LanguageModelV3 & { calls: LanguageModelV3CallOptions[] } {
  const calls: LanguageModelV3CallOptions[] = [];
  return {
    specificationVersion: "v3",
    provider: "legacy.chat",
    modelId: "old-1",
    supportedUrls: {},
    calls,
    doGenerate() {
      throw new Error("unused");
    },
    async doStream(options) {
      calls.push(options);
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}

describe("aiSdk with a LanguageModelV3", () => {
  it("converts the prompt to V3 file and tool-result formats and maps its stream", async () => {
    const model = v3Model([
      { type: "stream-start", warnings: [] },
      { type: "reasoning-start", id: "r", providerMetadata: { legacy: { signature: "s" } } },
      { type: "reasoning-delta", id: "r", delta: "Hm." },
      { type: "reasoning-end", id: "r" },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Here:" },
      { type: "text-end", id: "t" },
      { type: "file", mediaType: "image/png", data: new Uint8Array([1, 2, 3]) },
      { type: "tool-call", toolCallId: "c2", toolName: "shot", input: "{}" },
      {
        type: "finish",
        finishReason: { unified: "tool-calls", raw: "tool_use" },
        usage: {
          inputTokens: { total: 9, noCache: 9, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 2, text: 2, reasoning: undefined },
        },
      },
    ]);
    const binding = aiSdk(model);
    expect(binding.specifier).toBe("legacy.chat/old-1");
    const request: ModelRequest = {
      system: "sys",
      context: "",
      tools: [{ name: "shot", description: "Screenshot.", inputSchema: { type: "object", properties: {} } }],
      hostedTools: [],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "see" },
            { type: "image", mediaType: "image/png", data: PNG },
          ],
        },
        {
          role: "assistant",
          content: [{ type: "provider", provider: "ai-sdk", data: { part: "custom", kind: "legacy.thing" } }],
          toolCalls: [{ id: "c1", name: "shot", input: {} }],
        },
        {
          role: "tool",
          toolCallId: "c1",
          toolName: "shot",
          content: [
            { type: "text", text: "png:" },
            { type: "image", mediaType: "image/png", data: PNG },
          ],
          isError: false,
        },
      ],
    };
    const events = await collect(binding.stream(request, { signal: new AbortController().signal }));
    expect(model.calls[0]?.prompt).toEqual([
      { role: "system", content: "sys" },
      {
        role: "user",
        content: [
          { type: "text", text: "see" },
          { type: "file", mediaType: "image/png", data: PNG },
        ],
      },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "shot", input: {} }] },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "shot",
            output: {
              type: "content",
              value: [
                { type: "text", text: "png:" },
                { type: "image-data", data: PNG, mediaType: "image/png" },
              ],
            },
          },
        ],
      },
    ]);
    expect(model.calls[0]?.tools).toEqual([
      { type: "function", name: "shot", description: "Screenshot.", inputSchema: { type: "object", properties: {} } },
    ]);
    expect(events).toEqual([
      { type: "thinking-delta", text: "Hm." },
      {
        type: "content",
        block: {
          type: "provider",
          provider: "ai-sdk",
          data: { part: "reasoning", text: "Hm.", metadata: { legacy: { signature: "s" } } },
        },
      },
      { type: "text-delta", text: "Here:" },
      { type: "content", block: { type: "image", mediaType: "image/png", data: "AQID" } },
      { type: "tool-call", toolCall: { id: "c2", name: "shot", input: {} } },
      { type: "usage", usage: { inputTokens: 9, outputTokens: 2 } },
      { type: "finish", stopReason: "tool-calls" },
    ]);
  });
});
