// The conversation as Anthropic's Messages API takes it: user and assistant turns that
// alternate, tool results as user `tool_result` blocks, this adapter's opaque blocks handed
// back unchanged.
import type { Anthropic } from "@anthropic-ai/sdk";
import type { ContentBlock, ImageBlock, Message } from "@castellan/harness";
import { ConversationFold } from "../shared/conversation-fold.js";

/** The `provider` name of the blocks this adapter makes and accepts back. */
export const PROVIDER_NAME = "anthropic";

type BlockParam = Anthropic.ContentBlockParam;
type Base64MediaType = Anthropic.Base64ImageSource["media_type"];
type ToolResultContent = Exclude<Anthropic.ToolResultBlockParam["content"], string | undefined>[number];

/** The image types Anthropic accepts; others are replaced by a short note. */
const IMAGE_TYPES: ReadonlySet<string> = new Set<Base64MediaType>([
  "image/jpeg",
  "image/png",
  "image/gif",
  "image/webp",
]);

/** One message in wire form, before merging with its neighbours: its role and its blocks. */
interface MappedMessage {
  readonly role: "user" | "assistant";
  readonly content: readonly BlockParam[];
}

/**
 * Each message's wire form, by object identity. The runner hands the same message objects to
 * every turn, so only messages not seen before are mapped and a request costs what its new
 * messages cost. Harness messages are never changed in place (a `beforeModel` hook that rewrites
 * one makes a new object, which is then mapped afresh); the mapping depends on nothing but the
 * message itself, so one module-wide cache serves every binding. Entries go with their messages.
 */
const mappedMessages = new WeakMap<Message, MappedMessage>();

/**
 * Maps the conversation, appends `context` (this turn only) as a final user text block, and
 * merges consecutive messages of one role, which Anthropic requires to alternate: tool results
 * and the user message after them become one user message, results first as Anthropic asks.
 * Messages left with no content are skipped (Anthropic rejects empty ones).
 *
 * Each message is mapped once and cached (see `mappedMessages`); only the merging runs over the
 * whole conversation on every call. The returned turns and their block lists are new on every
 * call, but the blocks in them are shared with earlier calls: treat them as read-only.
 */
export function toAnthropicMessages(messages: readonly Message[], context: string): Anthropic.MessageParam[] {
  const folded = turnFold.run(messages);
  // New lists: the fold's last turn may still grow with later messages (or this turn's context).
  const turns: Anthropic.MessageParam[] = folded.slice(0, -1);
  const last = folded.at(-1);
  if (last) turns.push({ role: last.role, content: last.content.slice() });
  if (context) {
    const text: BlockParam = { type: "text", text: context };
    const end = turns.at(-1);
    if (end?.role === "user") (end.content as BlockParam[]).push(text);
    else turns.push({ role: "user", content: [text] });
  }
  return turns;
}

type Turn = { readonly role: "user" | "assistant"; readonly content: BlockParam[] };

/**
 * The conversation's merged turns, continued from the previous request's (see
 * ConversationFold): a message of the same role as the last turn joins it.
 */
const turnFold = new ConversationFold<Turn[]>({
  start: () => [],
  add(turns, message) {
    const { role, content } = mappedMessage(message);
    if (content.length === 0) return;
    const last = turns.at(-1);
    if (last && last.role === role) last.content.push(...content);
    // A copy, so that merging never grows a cached list.
    else turns.push({ role, content: content.slice() });
  },
});

/** The message's wire form, from the cache when this object was mapped before. */
function mappedMessage(message: Message): MappedMessage {
  let mapped = mappedMessages.get(message);
  if (!mapped) {
    mapped = mapMessage(message);
    mappedMessages.set(message, mapped);
  }
  return mapped;
}

function mapMessage(message: Message): MappedMessage {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.content.flatMap(userBlock) };
    case "assistant":
      return {
        role: "assistant",
        content: [
          ...assistantContent(message.content),
          ...message.toolCalls.map(
            (call): Anthropic.ToolUseBlockParam => ({
              type: "tool_use",
              id: call.id,
              name: call.name,
              input: call.input,
            }),
          ),
        ],
      };
    case "tool": {
      const content = message.content.flatMap(toolResultBlock);
      return {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: message.toolCallId,
            // An empty result is sent without content, which Anthropic accepts.
            ...(content.length > 0 ? { content } : {}),
            is_error: message.isError,
          },
        ],
      };
    }
  }
}

function userBlock(block: ContentBlock): BlockParam[] {
  switch (block.type) {
    case "text":
      return block.text ? [{ type: "text", text: block.text }] : [];
    case "image":
      return [image(block)];
    case "provider":
      return ownBlock(block.provider, block.data);
  }
}

function toolResultBlock(block: ContentBlock): ToolResultContent[] {
  switch (block.type) {
    case "text":
      return block.text ? [{ type: "text", text: block.text }] : [];
    case "image":
      // Anthropic reads images inside tool results directly.
      return [image(block)];
    case "provider":
      return ownBlock(block.provider, block.data) as ToolResultContent[];
  }
}

/**
 * Text blocks that carry citations (web search results they draw on, `web_search_result_location`
 * with `encrypted_index`) must go back with their citations, exactly as Anthropic sent them. The
 * stream therefore gives such a block twice: its text as `text-delta` events, so the Runner's
 * text reads whole (it merges the text with the plain text before it into one text block), and
 * then the block itself, with text and citations, as a provider block right after that text.
 * Here the provider block takes back its own text: it is cut from the end of the text block
 * before it, whatever is left of that block (the plain text before the cited one) goes as plain
 * text, and the provider block goes as it was received. A restored conversation is the same
 * blocks, so it sends what the API returned. When the text before it no longer ends with the
 * cited text (a hook rewrote the message), the message's text wins and the block is left out, so
 * the text is never sent twice.
 */
function assistantContent(content: readonly ContentBlock[]): BlockParam[] {
  const blocks: BlockParam[] = [];
  /** The last block pushed, when it is plain text made here (so it can give up a cited text). */
  let plain: Anthropic.TextBlockParam | undefined;
  for (const block of content) {
    const cited = block.type === "provider" ? citedText(block.provider, block.data) : undefined;
    if (cited === undefined) {
      const mapped = assistantBlock(block);
      blocks.push(...mapped);
      const last = mapped.at(-1);
      plain = block.type === "text" && last?.type === "text" ? last : mapped.length > 0 ? undefined : plain;
      continue;
    }
    if (cited.text === "") {
      blocks.push(cited);
    } else if (plain?.text.endsWith(cited.text)) {
      blocks.pop();
      const rest = plain.text.slice(0, plain.text.length - cited.text.length);
      if (rest) blocks.push({ type: "text", text: rest });
      blocks.push(cited);
    }
    plain = undefined;
  }
  return blocks;
}

/** A text block with at least one citation (as this adapter keeps it, or as Anthropic sent it). */
export function hasCitations(block: Readonly<Record<string, unknown>>): boolean {
  return block.type === "text" && Array.isArray(block.citations) && block.citations.length > 0;
}

/** This adapter's kept text block with citations, or undefined for any other block. */
function citedText(provider: string, data: unknown): Anthropic.TextBlockParam | undefined {
  if (provider !== PROVIDER_NAME || data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
  const block = data as Record<string, unknown>;
  return hasCitations(block) && typeof block.text === "string"
    ? (block as unknown as Anthropic.TextBlockParam)
    : undefined;
}

function assistantBlock(block: ContentBlock): BlockParam[] {
  switch (block.type) {
    case "text":
      return block.text ? [{ type: "text", text: block.text }] : [];
    case "image":
      // Assistant turns cannot carry images on Anthropic; this adapter never produces them.
      return [];
    case "provider":
      // Thinking, redacted thinking and server tool blocks go back exactly as received, in their place.
      return ownBlock(block.provider, block.data);
  }
}

/** An image block, or a note in its place when Anthropic cannot read its type. */
function image(block: ImageBlock): Anthropic.ImageBlockParam | Anthropic.TextBlockParam {
  if (!IMAGE_TYPES.has(block.mediaType)) {
    return {
      type: "text",
      text: `[An ${block.mediaType} image was left out: Anthropic reads JPEG, PNG, GIF and WebP.]`,
    };
  }
  return {
    type: "image",
    source: { type: "base64", media_type: block.mediaType as Base64MediaType, data: block.data },
  };
}

/** This adapter's opaque block as it was received; another provider's blocks are dropped. */
function ownBlock(provider: string, data: unknown): BlockParam[] {
  if (provider !== PROVIDER_NAME) return [];
  if (data === null || typeof data !== "object" || Array.isArray(data)) return [];
  if (typeof (data as { type?: unknown }).type !== "string") return [];
  return [data as BlockParam];
}
