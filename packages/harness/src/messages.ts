import type { ContentBlock } from "./content.js";
import type { JsonValue } from "./json.js";

/** A tool call the model asked for. */
export interface ToolCall {
  /** The provider's call id, echoed back with the result. */
  readonly id: string;
  readonly name: string;
  /** The input exactly as the model wrote it (validated against the tool's schema later). */
  readonly input: JsonValue;
  /**
   * The arguments text as the model wrote it, set by an adapter only when that text is not
   * valid JSON (typically a call cut off at the output limit); `input` is then `{}`. The
   * Runner settles such a call with an error result asking the model to send it again.
   */
  readonly malformedInput?: string;
}

/** A tool call whose arguments text could not be read as JSON: input `{}`, the text kept as it came. */
export function malformedToolCall(id: string, name: string, text: string): ToolCall {
  return { id, name, input: {}, malformedInput: text };
}

/** What the user (or the host) said. */
export interface UserMessage {
  readonly role: "user";
  readonly content: readonly ContentBlock[];
}

/** What the model answered in one turn. */
export interface AssistantMessage {
  readonly role: "assistant";
  /** Ordered text, image and provider blocks. */
  readonly content: readonly ContentBlock[];
  readonly toolCalls: readonly ToolCall[];
}

/** The settled result of one tool call, sent back to the model. */
export interface ToolResultMessage {
  readonly role: "tool";
  readonly toolCallId: string;
  readonly toolName: string;
  readonly content: readonly ContentBlock[];
  /** An error result still settles the call; the model reads it and decides what to do. */
  readonly isError: boolean;
}

/** One entry of a conversation as the model sees it. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;
