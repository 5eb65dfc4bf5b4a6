import type { AssistantMessage, ContentBlock, ModelStreamEvent, ToolCall } from "@castellan/harness";

/** Every event of a stream, in order; `onEvent` sees each as it arrives. */
export async function collect<Event>(stream: AsyncIterable<Event>, onEvent?: (event: Event) => void): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of stream) {
    events.push(event);
    onEvent?.(event);
  }
  return events;
}

/** The concatenated text of the text deltas. */
export function textOf(events: readonly ModelStreamEvent[]): string {
  return events.map((event) => (event.type === "text-delta" ? event.text : "")).join("");
}

/** The assistant message a runner assembles from the events: consecutive text deltas form one block. */
export function assemble(events: readonly ModelStreamEvent[]): AssistantMessage {
  const content: ContentBlock[] = [];
  const toolCalls: ToolCall[] = [];
  let text = "";
  const flush = () => {
    if (text) content.push({ type: "text", text });
    text = "";
  };
  for (const event of events) {
    if (event.type === "text-delta") text += event.text;
    else if (event.type === "content") {
      flush();
      content.push(event.block);
    } else if (event.type === "tool-call") toolCalls.push(event.toolCall);
  }
  flush();
  return { role: "assistant", content, toolCalls };
}
