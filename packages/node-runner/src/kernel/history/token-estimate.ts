import type { ContentBlock, Message } from "@castellan/harness";

// A cheap, provider-neutral size estimate (about four characters a token). Compaction uses
// it to decide when a request would exceed the context budget; providers' own counts
// (usage) are the truth once a call has been made.

const imageTokens = 1_600;

function blockCharacters(block: ContentBlock): number {
  switch (block.type) {
    case "text":
      return block.text.length;
    case "image":
      return imageTokens * 4;
    case "provider":
      return JSON.stringify(block.data)?.length ?? 0;
  }
}

/** The estimated tokens of one message. */
export function estimateMessageTokens(message: Message): number {
  let characters = 16;
  for (const block of message.content) characters += blockCharacters(block);
  if (message.role === "assistant") {
    for (const call of message.toolCalls) characters += call.name.length + (JSON.stringify(call.input)?.length ?? 0);
  }
  return Math.ceil(characters / 4);
}

/** The estimated tokens of some text. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
