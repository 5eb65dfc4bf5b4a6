// Maps the conversation to Responses `input` items, keeping every item in its original place.
import {
  type AssistantMessage,
  type ContentBlock,
  type JsonValue,
  jsonEqual,
  type Message,
  type ToolCall,
  type ToolResultMessage,
} from "@castellan/harness";
import type {
  ResponseFunctionCallOutputItem,
  ResponseFunctionToolCall,
  ResponseInputContent,
  ResponseInputItem,
} from "openai/resources/responses/responses";
import { ConversationFold } from "../shared/conversation-fold.js";
import { isMessageMarker, markerPhase } from "./message-marker.js";

/** The `provider` of the blocks this adapter makes (reasoning, function call and web search items, message markers). */
export const RESPONSES_PROVIDER = "openai-responses";

/**
 * An assistant message as the Responses API accepts it back in `input`: an output message
 * without the id and status the server assigned (the SDK's ResponseOutputMessage requires them).
 */
interface AssistantOutputMessage {
  readonly type: "message";
  readonly role: "assistant";
  readonly content: { readonly type: "output_text"; readonly text: string; readonly annotations: [] }[];
  /** The phase the output message had (`commentary`, `final_answer`), sent back as it came. */
  readonly phase?: string;
}

/** One item of the request's `input`. */
export type InputItem = ResponseInputItem | AssistantOutputMessage;

/**
 * Each message's items, by object identity. The runner hands the same message objects to every
 * turn, so only messages not seen before are mapped (and their saved calls compared with their
 * tool calls, which parses the saved arguments): a request costs what its new messages cost.
 * Harness messages are never changed in place (a `beforeModel` hook that rewrites one makes a new
 * object, which is then mapped afresh), and a message's items depend on nothing but the message,
 * so one module-wide cache serves every binding. Entries go with their messages.
 */
const mappedMessages = new WeakMap<Message, readonly InputItem[]>();

/**
 * The conversation as `input` items, in order. The list is new on every call; the items in it
 * are shared with earlier calls (see `mappedMessages`): treat them as read-only.
 */
export function toInputItems(messages: readonly Message[]): InputItem[] {
  // A new list: the fold goes on growing after this request is sent.
  return itemFold.run(messages).slice();
}

/** The conversation's items, continued from the previous request's (see ConversationFold). */
const itemFold = new ConversationFold<InputItem[]>({
  start: () => [],
  add(items, message) {
    for (const item of messageItems(message)) items.push(item);
  },
});

/** The message's items, from the cache when this object was mapped before. */
function messageItems(message: Message): readonly InputItem[] {
  let mapped = mappedMessages.get(message);
  if (!mapped) {
    const items: InputItem[] = [];
    if (message.role === "user") pushUser(items, message.content);
    else if (message.role === "assistant") pushAssistant(items, message);
    else items.push(functionCallOutput(message));
    mapped = items;
    mappedMessages.set(message, mapped);
  }
  return mapped;
}

/** A user message item holding one text. */
export function userText(text: string): ResponseInputItem {
  return { type: "message", role: "user", content: [{ type: "input_text", text }] };
}

function ownItem(block: ContentBlock): Record<string, JsonValue> | undefined {
  if (block.type !== "provider" || block.provider !== RESPONSES_PROVIDER) return undefined;
  return isRecord(block.data) && typeof block.data.type === "string" ? block.data : undefined;
}

function isRecord(value: JsonValue): value is Record<string, JsonValue> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function imageUrl(block: { readonly mediaType: string; readonly data: string }): string {
  return `data:${block.mediaType};base64,${block.data}`;
}

function pushUser(items: InputItem[], content: readonly ContentBlock[]): void {
  let parts: ResponseInputContent[] = [];
  const flush = () => {
    if (parts.length > 0) items.push({ type: "message", role: "user", content: parts });
    parts = [];
  };
  for (const block of content) {
    if (block.type === "text") parts.push({ type: "input_text", text: block.text });
    else if (block.type === "image") parts.push({ type: "input_image", image_url: imageUrl(block), detail: "auto" });
    else {
      // An item of this adapter goes back in its place; other providers' blocks are dropped.
      const item = ownItem(block);
      if (item && !isMessageMarker(item)) {
        flush();
        items.push(item as unknown as ResponseInputItem);
      }
    }
  }
  flush();
}

function pushAssistant(items: InputItem[], message: AssistantMessage): void {
  // Calls not yet placed, by id. A function_call block marks where its call stood in the output.
  const unplaced = new Map<string, ToolCall>(message.toolCalls.map((call) => [call.id, call]));
  let texts: AssistantOutputMessage["content"] = [];
  const flush = (phase?: string) => {
    if (texts.length > 0) {
      items.push({ type: "message", role: "assistant", content: texts, ...(phase === undefined ? {} : { phase }) });
    }
    texts = [];
  };
  for (const block of message.content) {
    if (block.type === "text") {
      texts.push({ type: "output_text", text: block.text, annotations: [] });
      continue;
    }
    // Images have no place in an output message; other providers' blocks are dropped.
    const item = ownItem(block);
    if (!item) continue;
    // A message marker ends the text of its output message, which goes back with its phase.
    if (isMessageMarker(item)) {
      flush(markerPhase(item));
      continue;
    }
    flush();
    if (item.type !== "function_call") {
      items.push(item as unknown as ResponseInputItem);
      continue;
    }
    const call = typeof item.call_id === "string" ? unplaced.get(item.call_id) : undefined;
    // A call no longer in the message (a hook removed it) goes with its block.
    if (!call) continue;
    unplaced.delete(call.id);
    items.push(sameCall(item, call) ? (item as unknown as ResponseInputItem) : functionCall(call, item.id));
  }
  flush();
  // Calls without a block (made by another adapter, or added by a hook) follow the content.
  for (const call of unplaced.values()) items.push(functionCall(call, undefined));
}

/** True when the saved item still says what the call says, so it can go back byte for byte. */
function sameCall(item: Record<string, JsonValue>, call: ToolCall): boolean {
  if (item.name !== call.name || typeof item.arguments !== "string") return false;
  try {
    return jsonEqual(item.arguments === "" ? {} : (JSON.parse(item.arguments) as JsonValue), call.input);
  } catch {
    return false;
  }
}

function functionCall(call: ToolCall, id: JsonValue | undefined): ResponseFunctionToolCall {
  return {
    type: "function_call",
    ...(typeof id === "string" ? { id } : {}),
    call_id: call.id,
    name: call.name,
    arguments: JSON.stringify(call.input),
  };
}

function functionCallOutput(message: ToolResultMessage): ResponseInputItem {
  const parts: ResponseFunctionCallOutputItem[] = [];
  for (const block of message.content) {
    if (block.type === "text") parts.push({ type: "input_text", text: block.text });
    else if (block.type === "image") parts.push({ type: "input_image", image_url: imageUrl(block), detail: "auto" });
  }
  // A lone text goes as a plain string, the form every Responses server accepts; ordered text
  // and images as the list of parts.
  const only = parts.length === 1 ? parts[0] : undefined;
  const output = parts.length === 0 ? "" : only?.type === "input_text" ? only.text : parts;
  return { type: "function_call_output", call_id: message.toolCallId, output };
}
