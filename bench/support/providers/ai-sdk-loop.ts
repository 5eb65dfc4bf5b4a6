// The floor of the AI SDK adapter: the same hand-written loop, calling the wrapped AI SDK
// language model's `doStream` directly with a prompt kept in the AI SDK's own format. What is
// left between it and the adapter alone is the adapter's mapping.
import type { LanguageModelV4, LanguageModelV4Prompt, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { tick, tickTool } from "../instant-model.ts";
import { durationsFromStarts, type TurnTimings } from "../stats.ts";
import { benchPrompt, benchSystem } from "./bare-loop.ts";

/**
 * Runs `turns` turns against `model`: system prompt and user message first, then per turn the
 * assistant's tool call and the tool's text result, as the AI SDK's prompt parts. Times each
 * turn from its start to the next turn's start.
 */
export async function runAiSdkLoop(
  model: LanguageModelV4,
  turns: number,
): Promise<TurnTimings & { readonly text: string }> {
  const prompt: LanguageModelV4Prompt = [
    { role: "system", content: benchSystem },
    { role: "user", content: [{ type: "text", text: benchPrompt(turns) }] },
  ];
  const tools = [
    {
      type: "function" as const,
      name: tickTool.name,
      description: tickTool.description,
      inputSchema: tickTool.inputSchema as never,
    },
  ];
  const starts: number[] = [];
  let text = "";
  const begin = performance.now();
  while (true) {
    starts.push(performance.now());
    const { stream } = await model.doStream({ prompt, tools });
    const calls: Extract<LanguageModelV4StreamPart, { type: "tool-call" }>[] = [];
    text = "";
    const reader = stream.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      const part = read.value;
      if (part.type === "text-delta") text += part.delta;
      else if (part.type === "tool-call") calls.push(part);
      else if (part.type === "error") throw part.error;
    }
    if (calls.length === 0) break;
    prompt.push({
      role: "assistant",
      content: calls.map((call) => ({
        type: "tool-call" as const,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: JSON.parse(call.input),
      })),
    });
    prompt.push({
      role: "tool",
      content: calls.map((call) => ({
        type: "tool-result" as const,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: { type: "text" as const, value: tick(JSON.parse(call.input) as { n: number }) },
      })),
    });
  }
  const end = performance.now();
  starts.push(end);
  if (starts.length !== turns + 1) throw new Error(`The AI SDK loop ran ${starts.length - 1} turns, not ${turns}.`);
  return { durations: durationsFromStarts(starts), totalMs: end - begin, text };
}
