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
import { reasoningDetailsOf } from "./reasoning-details.js";

/** An assistant message with OpenRouter's `reasoning_details`, which the SDK's type does not declare. */
type AssistantWithReasoning = ChatCompletionAssistantMessageParam & { reasoning_details?: readonly JsonValue[] };

/** What a Chat Completions request is built from, besides the model request. */
export interface ChatRequestOptions {
  readonly model: string;
  readonly maxOutputTokens: number | undefined;
  readonly maxTokensField: "max_tokens" | "max_completion_tokens";
}

/** Builds the request body: system prompt, conversation, tool replies with their images, then context. */
export function chatRequestBody(
  request: ModelRequest,
  options: ChatRequestOptions,
): ChatCompletionCreateParamsStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.system) messages.push({ role: "system", content: request.system });
  let replies: ToolResultMessage[] = [];
  const endReplyGroup = () => {
    const images = toolImagesMessage(replies);
    if (images) messages.push(images);
    replies = [];
  };
  for (const message of request.messages) {
    if (message.role !== "tool") endReplyGroup();
    messages.push(toChatMessage(message));
    if (message.role === "tool") replies.push(message);
  }
  endReplyGroup();
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

/** One user message with each tool reply's images, each group labelled with its call id and tool name. */
function toolImagesMessage(replies: readonly ToolResultMessage[]): ChatCompletionMessageParam | undefined {
  const parts: ChatCompletionContentPart[] = [];
  for (const reply of replies) {
    const images = reply.content.filter(isImage);
    if (images.length === 0) continue;
    parts.push({ type: "text", text: `Image from tool call ${reply.toolCallId} (${reply.toolName}):` });
    for (const image of images) parts.push(imagePart(image));
  }
  return parts.length > 0 ? { role: "user", content: parts } : undefined;
}

function imagePart(image: ImageBlock): ChatCompletionContentPart {
  return { type: "image_url", image_url: { url: `data:${image.mediaType};base64,${image.data}` } };
}

function isImage(block: ContentBlock): block is ImageBlock {
  return block.type === "image";
}
