// ModelRequest → Chat Completions messages and tools.
import {
  type ContentBlock,
  type ImageBlock,
  type JsonValue,
  type Message,
  type ModelRequest,
  type ToolResultMessage,
  textOf,
} from "@castellan/harness";
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { ConversationFold } from "../shared/conversation-fold.js";
import { reasoningDetailsOf } from "./reasoning-details.js";

/** An assistant message with OpenRouter's `reasoning_details`, which the SDK's type does not declare. */
type AssistantWithReasoning = ChatCompletionAssistantMessageParam & { reasoning_details?: readonly JsonValue[] };

/** What a Chat Completions request is built from, besides the model request. */
export interface ChatRequestOptions {
  readonly model: string;
  readonly maxOutputTokens: number | undefined;
  readonly maxTokensField: "max_tokens" | "max_completion_tokens";
}

/** The conversation in wire form so far, and the labelled images of its last group of tool replies. */
interface ChatFold {
  readonly wire: ChatCompletionMessageParam[];
  replyImages: ChatCompletionContentPart[];
}

/**
 * The conversation's wire form, continued from the previous request's (see ConversationFold):
 * a tool reply's images are held until its group of replies ends, then sent as one user message.
 */
const chatFold = new ConversationFold<ChatFold>({
  start: () => ({ wire: [], replyImages: [] }),
  add(fold, message) {
    if (message.role !== "tool" && fold.replyImages.length > 0) {
      fold.wire.push({ role: "user", content: fold.replyImages });
      fold.replyImages = [];
    }
    const mapped = mappedMessage(message);
    fold.wire.push(mapped.wire);
    if (mapped.images) fold.replyImages = [...fold.replyImages, ...mapped.images];
  },
});

/** Builds the request body: system prompt, conversation, tool replies with their images, then context. */
export function chatRequestBody(
  request: ModelRequest,
  options: ChatRequestOptions,
): ChatCompletionCreateParamsStreaming {
  const fold = chatFold.run(request.messages);
  // A new list: the fold goes on growing after this request is sent.
  const messages: ChatCompletionMessageParam[] = request.system ? [{ role: "system", content: request.system }] : [];
  for (const message of fold.wire) messages.push(message);
  if (fold.replyImages.length > 0) messages.push({ role: "user", content: fold.replyImages });
  // Live context for this turn only: after the conversation, never saved.
  if (request.context) messages.push({ role: "user", content: request.context });
  return {
    model: options.model,
    messages,
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: "function" as const,
            function: { name: tool.name, description: tool.description, parameters: { ...tool.inputSchema } },
          })),
        }
      : {}),
    stream: true,
    stream_options: { include_usage: true },
    ...(options.maxOutputTokens === undefined
      ? {}
      : options.maxTokensField === "max_tokens"
        ? { max_tokens: options.maxOutputTokens }
        : { max_completion_tokens: options.maxOutputTokens }),
  };
}

/** One message's wire form: its Chat Completions message and, for a tool reply, its labelled images. */
interface MappedMessage {
  readonly wire: ChatCompletionMessageParam;
  readonly images: readonly ChatCompletionContentPart[] | undefined;
}

/**
 * Wire forms by message object. The runner sends the same message objects every turn, so only
 * messages not seen before are mapped and a request costs in proportion to what is new; a hook
 * that rewrites a message makes a new object, which is mapped afresh. Sound because messages are
 * immutable (readonly) and the wire form depends on nothing but the message; the cached objects
 * are shared between requests and only ever serialized, never changed.
 */
const wireForms = new WeakMap<Message, MappedMessage>();

function mappedMessage(message: Message): MappedMessage {
  let form = wireForms.get(message);
  if (!form) {
    form = { wire: toChatMessage(message), images: message.role === "tool" ? toolImageParts(message) : undefined };
    wireForms.set(message, form);
  }
  return form;
}

function toChatMessage(message: Message): ChatCompletionMessageParam {
  switch (message.role) {
    case "user":
      return { role: "user", content: userContent(message.content) };
    case "assistant": {
      // Text goes back as content, this adapter's reasoning blocks as `reasoning_details`
      // (the field OpenRouter reads to continue the reasoning); other blocks are dropped.
      const text = textOf(message.content);
      const reasoningDetails = reasoningDetailsOf(message.content);
      const assistant: AssistantWithReasoning = {
        role: "assistant",
        content: text.length > 0 ? text : null,
        ...(message.toolCalls.length > 0
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: "function" as const,
                function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) },
              })),
            }
          : {}),
        ...(reasoningDetails ? { reasoning_details: reasoningDetails } : {}),
      };
      return assistant;
    }
    case "tool": {
      const text = textOf(message.content);
      const images = message.content.filter(isImage).length;
      // A tool message carries text only; its images follow in a user message after the reply group.
      const body = text.length > 0 || images === 0 ? text : `(${images} image(s), sent in the next user message)`;
      return { role: "tool", tool_call_id: message.toolCallId, content: message.isError ? `Error: ${body}` : body };
    }
  }
}

/** Plain text as a string (what every compatible server accepts); parts only when there are images. */
function userContent(blocks: readonly ContentBlock[]): string | ChatCompletionContentPart[] {
  if (!blocks.some(isImage)) return textOf(blocks);
  const parts: ChatCompletionContentPart[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (block.type === "image") parts.push(imagePart(block));
  }
  return parts;
}

/**
 * A tool reply's images for the user message after its reply group, labelled with its call id
 * and tool name; undefined when it has none.
 */
function toolImageParts(reply: ToolResultMessage): ChatCompletionContentPart[] | undefined {
  const images = reply.content.filter(isImage);
  if (images.length === 0) return undefined;
  const parts: ChatCompletionContentPart[] = [
    { type: "text", text: `Image from tool call ${reply.toolCallId} (${reply.toolName}):` },
  ];
  for (const image of images) parts.push(imagePart(image));
  return parts;
}

function imagePart(image: ImageBlock): ChatCompletionContentPart {
  return { type: "image_url", image_url: { url: `data:${image.mediaType};base64,${image.data}` } };
}

function isImage(block: ContentBlock): block is ImageBlock {
  return block.type === "image";
}
