import type { JsonValue } from "./json.js";

/** Plain text. */
export interface TextBlock {
  readonly type: "text";
  readonly text: string;
}

/** An image, base64-encoded. */
export interface ImageBlock {
  readonly type: "image";
  /** The IANA media type, e.g. `image/png`. */
  readonly mediaType: string;
  /** The image bytes, base64-encoded. */
  readonly data: string;
}

/**
 * A provider's own block (a thinking signature, a reasoning item, a hosted search result),
 * kept opaque so a restored Session hands it back to the same provider unchanged.
 */
export interface ProviderBlock {
  readonly type: "provider";
  /** Which adapter produced it, e.g. `anthropic`. Other adapters skip foreign blocks. */
  readonly provider: string;
  readonly data: JsonValue;
}

/** One ordered piece of a message or a tool result. */
export type ContentBlock = TextBlock | ImageBlock | ProviderBlock;

/** A text block. */
export function text(value: string): TextBlock {
  return { type: "text", text: value };
}

/** The text of the text blocks, in order, joined without separators. */
export function textOf(blocks: readonly ContentBlock[]): string {
  let result = "";
  for (const block of blocks) if (block.type === "text") result += block.text;
  return result;
}

/** True when the value is a well-formed content block. */
export function isContentBlock(value: unknown): value is ContentBlock {
  if (value === null || typeof value !== "object") return false;
  const block = value as Record<string, unknown>;
  switch (block.type) {
    case "text":
      return typeof block.text === "string";
    case "image":
      return typeof block.mediaType === "string" && typeof block.data === "string";
    case "provider":
      return typeof block.provider === "string" && "data" in block;
    default:
      return false;
  }
}
