// The lower bound: the least a turn loop can do with the same model and tool.
import type { ContentBlock, Message, ModelBinding, ModelRequest, ToolCall } from "@castellan/harness";
import { createInstantModel, tick, tickTool } from "./instant-model.ts";
import { durationsFromStarts, type TurnTimings } from "./stats.ts";

/**
 * Runs `turns` turns by hand: call the model with the conversation (the array itself, not a
 * copy), push its answer, execute its tool call, push the result. No persistence, events,
 * permission or validation. Times each turn from its start to the next turn's start; the last
 * turn ends when the loop returns. `model` answers instead of the instant model when given.
 */
export async function runHandWrittenLoop(
  turns: number,
  model: ModelBinding = createInstantModel(turns),
): Promise<TurnTimings & { readonly text: string }> {
  const signal = new AbortController().signal;
  const tools = [{ name: tickTool.name, description: tickTool.description, inputSchema: tickTool.inputSchema }];
  const messages: Message[] = [{ role: "user", content: [{ type: "text", text: `Tick ${turns} times.` }] }];
  const starts: number[] = [];
  let text = "";
  const begin = performance.now();
  while (true) {
    starts.push(performance.now());
    const request: ModelRequest = { system: "Tick until done.", context: "", messages, tools, hostedTools: [] };
    const toolCalls: ToolCall[] = [];
    // As the runner assembles an answer: consecutive text deltas form one text block, other
    // blocks (an adapter's opaque provider blocks) keep their place.
    const content: ContentBlock[] = [];
    let pending = "";
    text = "";
    for await (const event of model.stream(request, { signal })) {
      if (event.type === "tool-call") toolCalls.push(event.toolCall);
      else if (event.type === "text-delta") {
        pending += event.text;
        text += event.text;
      } else if (event.type === "content") {
        if (pending) content.push({ type: "text", text: pending });
        pending = "";
        content.push(event.block);
      } else if (event.type === "error") throw event.error;
    }
    if (pending) content.push({ type: "text", text: pending });
    messages.push({ role: "assistant", content, toolCalls });
    if (toolCalls.length === 0) break;
    for (const call of toolCalls) {
      const output = tick(call.input as { n: number });
      messages.push({
        role: "tool",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: output }],
        isError: false,
      });
    }
  }
  const end = performance.now();
  starts.push(end);
  if (starts.length !== turns + 1)
    throw new Error(`The hand-written loop ran ${starts.length - 1} turns, not ${turns}.`);
  return { durations: durationsFromStarts(starts), totalMs: end - begin, text };
}
