import type { ContentBlock, Message, ModelRequest, ToolResultMessage } from "@castellan/harness";

/** The text blocks of a message or tool result, joined; "" for undefined. */
export function textOf(holder: { readonly content: readonly ContentBlock[] } | undefined): string {
  return (holder?.content ?? []).map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** The tool results among `messages`, in order. */
export function toolMessages(messages: readonly Message[] | undefined): ToolResultMessage[] {
  return (messages ?? []).filter((message): message is ToolResultMessage => message.role === "tool");
}

/** The names of the tools a model request offered. */
export function toolNames(request: ModelRequest | undefined): string[] {
  return (request?.tools ?? []).map((tool) => tool.name);
}
