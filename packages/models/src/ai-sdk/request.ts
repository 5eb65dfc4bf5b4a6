// ModelRequest → the AI SDK's standardized prompt (LanguageModelV4Prompt) and function tools.
import type {
  LanguageModelV4FilePart,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
  SharedV4ProviderOptions,
} from "@ai-sdk/provider";
import {
  type AssistantMessage,
  type ContentBlock,
  type Message,
  type ModelRequest,
  type ToolResultMessage,
  type ToolSpec,
  textOf,
} from "@castellan/harness";
import { ConversationFold } from "../shared/conversation-fold.js";
import { readAiSdkBlock } from "./provider-blocks.js";

type UserMessage = Extract<LanguageModelV4Message, { role: "user" }>;
type AssistantPart = Extract<LanguageModelV4Message, { role: "assistant" }>["content"][number];
type ToolResultPart = Extract<LanguageModelV4Message, { role: "tool" }>["content"][number];

/**
 * The prompt of a request: `system` as the system message, the conversation in order (runs of
 * tool results merged into one tool message, as the SDK's own prompt conversion groups them),
 * then `context` as a final user message. Empty messages are left out.
 */
export function toPrompt(request: ModelRequest): LanguageModelV4Prompt {
  const folded = promptFold.run(request.messages);
  // A new list: the fold's last tool message may still gain parts from later messages.
  const prompt: LanguageModelV4Prompt = request.system ? [{ role: "system", content: request.system }] : [];
  for (let index = 0; index < folded.length - 1; index++) prompt.push(folded[index] as LanguageModelV4Message);
  const last = folded.at(-1);
  if (last) prompt.push(last.role === "tool" ? { role: "tool", content: last.content.slice() } : last);
  if (request.context) prompt.push({ role: "user", content: [{ type: "text", text: request.context }] });
  return prompt;
}

/**
 * The conversation's prompt messages, continued from the previous request's (see
 * ConversationFold): consecutive tool results form one tool message.
 */
const promptFold = new ConversationFold<LanguageModelV4Message[]>({
  start: () => [],
  add(prompt, message) {
    const mapped = mappedMessage(message);
    if (mapped === undefined) return;
    if (mapped.role !== "tool") {
      prompt.push(mapped);
      return;
    }
    // The merged tool message belongs to the fold: its parts are cached, the run they form is not.
    const last = prompt.at(-1);
    if (last?.role === "tool") last.content.push(mapped.part);
    else prompt.push({ role: "tool", content: [mapped.part] });
  },
});

/** One message's prompt form: a user or assistant message, a tool result part, or nothing when empty. */
type MappedMessage =
  | Extract<LanguageModelV4Message, { role: "user" | "assistant" }>
  | { readonly role: "tool"; readonly part: ToolResultPart }
  | undefined;

/**
 * Prompt forms by message object. The runner sends the same message objects every turn, so only
 * messages not seen before are mapped and a request costs in proportion to what is new; a hook
 * that rewrites a message makes a new object, which is mapped afresh. Sound because messages are
 * immutable (readonly) and the form depends on nothing but the message. The cached parts are
 * shared between requests, as the providers read the prompt without changing it.
 */
const promptForms = new WeakMap<Message, { readonly form: MappedMessage }>();

function mappedMessage(message: Message): MappedMessage {
  const cached = promptForms.get(message);
  if (cached) return cached.form;
  const form = toPromptForm(message);
  promptForms.set(message, { form });
  return form;
}

function toPromptForm(message: Message): MappedMessage {
  switch (message.role) {
    case "user": {
      const content = userParts(message.content);
      return content.length > 0 ? { role: "user", content } : undefined;
    }
    case "assistant": {
      const content = assistantParts(message);
      return content.length > 0 ? { role: "assistant", content } : undefined;
    }
    case "tool":
      return { role: "tool", part: toolResultPart(message) };
  }
}

/** The request's tools as function tools with their JSON Schemas. */
export function toFunctionTools(tools: readonly ToolSpec[]): LanguageModelV4FunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    inputSchema: structuredClone(tool.inputSchema) as LanguageModelV4FunctionTool["inputSchema"],
  }));
}

/** Text and images; provider blocks have no place in a user message and are left out. */
function userParts(blocks: readonly ContentBlock[]): UserMessage["content"] {
  const parts: UserMessage["content"] = [];
  for (const block of blocks) {
    if (block.type === "text" && block.text) parts.push({ type: "text", text: block.text });
    else if (block.type === "image") parts.push(imagePart(block.mediaType, block.data));
  }
  return parts;
}

/**
 * The assistant's blocks in order, with this adapter's provider blocks turned back into the
 * parts they came from (other adapters' blocks are dropped), then its tool calls.
 */
function assistantParts(message: AssistantMessage): AssistantPart[] {
  const parts: AssistantPart[] = [];
  const callOptions = new Map<string, SharedV4ProviderOptions>();
  // The text or file part a following `metadata` block belongs to.
  let owner: { providerOptions?: SharedV4ProviderOptions } | undefined;
  for (const block of message.content) {
    if (block.type === "text") {
      owner = undefined;
      if (!block.text) continue;
      const part: AssistantPart = { type: "text", text: block.text };
      parts.push(part);
      owner = part;
      continue;
    }
    if (block.type === "image") {
      const part = imagePart(block.mediaType, block.data);
      parts.push(part);
      owner = part;
      continue;
    }
    const data = readAiSdkBlock(block);
    if (data === undefined) continue;
    if (data.part === "metadata") {
      if (owner) owner.providerOptions = options(data.metadata);
      owner = undefined;
      continue;
    }
    owner = undefined;
    switch (data.part) {
      case "reasoning":
        parts.push({ type: "reasoning", text: data.text, ...withOptions(data.metadata) });
        break;
      case "tool-call-metadata":
        callOptions.set(data.toolCallId, options(data.metadata));
        break;
      case "tool-call":
        parts.push({
          type: "tool-call",
          toolCallId: data.toolCallId,
          toolName: data.toolName,
          input: data.input,
          providerExecuted: true,
          ...withOptions(data.metadata),
        });
        break;
      case "tool-result":
        parts.push({
          type: "tool-result",
          toolCallId: data.toolCallId,
          toolName: data.toolName,
          output: data.isError ? { type: "error-json", value: data.result } : { type: "json", value: data.result },
          ...withOptions(data.metadata),
        });
        break;
      case "custom":
        if (isCustomKind(data.kind)) parts.push({ type: "custom", kind: data.kind, ...withOptions(data.metadata) });
        break;
      case "file": {
        const fileData = fileDataOf(data.data, data.url);
        if (fileData === undefined) break;
        parts.push({
          type: data.reasoning ? "reasoning-file" : "file",
          mediaType: data.mediaType,
          data: fileData,
          ...withOptions(data.metadata),
        });
        break;
      }
      // Sources and approval requests are records of what happened, not prompt content.
      case "source":
      case "tool-approval-request":
        break;
    }
  }
  for (const call of message.toolCalls) {
    const providerOptions = callOptions.get(call.id);
    parts.push({
      type: "tool-call",
      toolCallId: call.id,
      toolName: call.name,
      input: call.input,
      ...(providerOptions ? { providerOptions } : {}),
    });
  }
  return parts;
}

/** A tool result with its call id, its text and images in the spec's tool-result output format. */
function toolResultPart(message: ToolResultMessage): ToolResultPart {
  return {
    type: "tool-result",
    toolCallId: message.toolCallId,
    toolName: message.toolName,
    output: toolOutput(message),
  };
}

/**
 * Text-only results are `text` (or `error-text`); results with images are `content` with
 * text and file parts in order. The content format has no error flag, so an error result with
 * images starts with a line saying the tool failed.
 */
function toolOutput(message: ToolResultMessage): LanguageModelV4ToolResultOutput {
  if (!message.content.some((block) => block.type === "image")) {
    const value = textOf(message.content);
    return message.isError ? { type: "error-text", value } : { type: "text", value };
  }
  const value: Extract<LanguageModelV4ToolResultOutput, { type: "content" }>["value"] = [];
  if (message.isError) value.push({ type: "text", text: "The tool call failed." });
  for (const block of message.content) {
    if (block.type === "text" && block.text) value.push({ type: "text", text: block.text });
    else if (block.type === "image") {
      value.push({ type: "file", mediaType: block.mediaType, data: { type: "data", data: block.data } });
    }
  }
  return { type: "content", value };
}

function imagePart(mediaType: string, data: string): LanguageModelV4FilePart {
  return { type: "file", mediaType, data: { type: "data", data } };
}

/** Inline base64 data, or the linked URL (undefined when the saved URL does not parse). */
function fileDataOf(data: string | undefined, url: string | undefined) {
  if (url === undefined) return { type: "data" as const, data: data ?? "" };
  return URL.canParse(url) ? { type: "url" as const, url: new URL(url) } : undefined;
}

function options(metadata: unknown): SharedV4ProviderOptions {
  return metadata as SharedV4ProviderOptions;
}

function withOptions(metadata: unknown): { providerOptions?: SharedV4ProviderOptions } {
  return metadata === undefined ? {} : { providerOptions: options(metadata) };
}

function isCustomKind(kind: string): kind is `${string}.${string}` {
  return kind.includes(".");
}
