// The opaque blocks this adapter keeps in a conversation so that what the provider said comes
// back to it unchanged on the next call: reasoning with its signatures or encrypted content,
// the provider metadata of text and tool calls (item ids, thought signatures), and the calls
// and results of tools the provider ran itself.
import type { ContentBlock, JsonObject, JsonValue, ProviderBlock } from "@castellan/harness";

/** The `provider` of every block this adapter makes. */
export const AI_SDK_PROVIDER = "ai-sdk";

/**
 * What an `ai-sdk` provider block holds. `metadata` is the part's provider metadata, sent back
 * as the prompt part's provider options. The SDK's names are kept so a saved record reads like
 * the spec.
 */
export type AiSdkBlockData =
  /** Reasoning text with its metadata; sent back as a reasoning part in its place. */
  | { readonly part: "reasoning"; readonly text: string; readonly metadata?: JsonObject }
  /** Metadata of the text or image block right before it; sent back on that part. */
  | { readonly part: "metadata"; readonly metadata: JsonObject }
  /** Metadata of the client tool call with this id; sent back on that call. */
  | { readonly part: "tool-call-metadata"; readonly toolCallId: string; readonly metadata: JsonObject }
  /** A call of a tool the provider runs itself (e.g. web search); sent back in its place. */
  | {
      readonly part: "tool-call";
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: JsonValue;
      readonly metadata?: JsonObject;
    }
  /** The result of a provider-run tool; sent back in its place. */
  | {
      readonly part: "tool-result";
      readonly toolCallId: string;
      readonly toolName: string;
      readonly result: JsonValue;
      readonly isError?: boolean;
      readonly metadata?: JsonObject;
    }
  /** A provider-specific part with no standard payload; sent back in its place. */
  | { readonly part: "custom"; readonly kind: string; readonly metadata?: JsonObject }
  /**
   * A generated file that is not a plain image (or an image with a URL), or a file produced
   * while reasoning; sent back in its place. `data` is base64; `url` when the provider linked it.
   */
  | {
      readonly part: "file";
      readonly mediaType: string;
      readonly data?: string;
      readonly url?: string;
      readonly reasoning?: boolean;
      readonly metadata?: JsonObject;
    }
  /** A cited source or a provider-run tool's approval request: kept for the record, never sent back. */
  | { readonly part: "source" | "tool-approval-request"; readonly detail: JsonObject };

/** An `ai-sdk` provider block holding `data`. */
export function aiSdkBlock(data: AiSdkBlockData): ProviderBlock {
  return { type: "provider", provider: AI_SDK_PROVIDER, data: data as unknown as JsonValue };
}

/** The data of a block this adapter made, or undefined for any other block or a malformed one. */
export function readAiSdkBlock(block: ContentBlock): AiSdkBlockData | undefined {
  if (block.type !== "provider" || block.provider !== AI_SDK_PROVIDER) return undefined;
  const data = block.data;
  if (!isObject(data) || typeof data.part !== "string") return undefined;
  const metadataOk = data.metadata === undefined || isObject(data.metadata);
  switch (data.part) {
    case "reasoning":
      return typeof data.text === "string" && metadataOk ? (data as unknown as AiSdkBlockData) : undefined;
    case "metadata":
      return isObject(data.metadata) ? (data as unknown as AiSdkBlockData) : undefined;
    case "tool-call-metadata":
      return typeof data.toolCallId === "string" && isObject(data.metadata)
        ? (data as unknown as AiSdkBlockData)
        : undefined;
    case "tool-call":
      return typeof data.toolCallId === "string" && typeof data.toolName === "string" && "input" in data && metadataOk
        ? (data as unknown as AiSdkBlockData)
        : undefined;
    case "tool-result":
      return typeof data.toolCallId === "string" && typeof data.toolName === "string" && "result" in data && metadataOk
        ? (data as unknown as AiSdkBlockData)
        : undefined;
    case "custom":
      return typeof data.kind === "string" && metadataOk ? (data as unknown as AiSdkBlockData) : undefined;
    case "file":
      return typeof data.mediaType === "string" &&
        (typeof data.data === "string" || typeof data.url === "string") &&
        metadataOk
        ? (data as unknown as AiSdkBlockData)
        : undefined;
    case "source":
    case "tool-approval-request":
      return isObject(data.detail) ? (data as unknown as AiSdkBlockData) : undefined;
    default:
      return undefined;
  }
}

/**
 * A JSON copy of provider metadata without `undefined` members (which the spec allows and a
 * saved record cannot hold); undefined when there is none or it is not JSON.
 */
export function metadataJson(metadata: unknown): JsonObject | undefined {
  if (!isObject(metadata) || Object.keys(metadata).length === 0) return undefined;
  const copy = jsonCopy(metadata);
  return isObject(copy) ? copy : undefined;
}

/** A JSON copy of a value (dropping `undefined` members), or undefined when it is not JSON. */
export function jsonCopy(value: unknown): JsonValue | undefined {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : (JSON.parse(text) as JsonValue);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
