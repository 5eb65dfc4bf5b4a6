// Small builders of the events a stream maps to: provider blocks, generated files, parsed tool
// arguments and malformed-stream errors.
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import type { JsonObject, JsonValue, ModelStreamEvent } from "@castellan/harness";
import { malformed } from "../shared/malformed.js";
import { bytesToBase64 } from "./base64.js";
import { ERROR_PROVIDER } from "./errors.js";
import { type AiSdkBlockData, aiSdkBlock, jsonCopy, metadataJson } from "./provider-blocks.js";

type Part<Type extends LanguageModelV4StreamPart["type"]> = Extract<LanguageModelV4StreamPart, { type: Type }>;

/** A generated image with inline data is an image block; other files stay provider blocks. */
export function fileEvents(part: Part<"file"> | Part<"reasoning-file">): ModelStreamEvent[] {
  const metadata = metadataJson(part.providerMetadata);
  const data = part.data as Part<"file">["data"] | undefined;
  const reasoning = part.type === "reasoning-file";
  const inline = data?.type === "data" ? base64(data.data) : undefined;
  if (!reasoning && inline !== undefined && part.mediaType.startsWith("image/")) {
    const events: ModelStreamEvent[] = [
      { type: "content", block: { type: "image", mediaType: part.mediaType, data: inline } },
    ];
    if (metadata) events.push(content({ part: "metadata", metadata }));
    return events;
  }
  const url = data?.type === "url" ? (data.originalUrl ?? data.url.toString()) : undefined;
  if (inline === undefined && url === undefined) return [];
  return [
    content({
      part: "file",
      mediaType: part.mediaType,
      ...(inline === undefined ? {} : { data: inline }),
      ...(url === undefined ? {} : { url }),
      ...(reasoning ? { reasoning } : {}),
      ...(metadata ? { metadata } : {}),
    }),
  ];
}

export function content(data: AiSdkBlockData): ModelStreamEvent {
  return { type: "content", block: aiSdkBlock(data) };
}

export function metadataOf(metadata: unknown): { metadata?: JsonObject } {
  const json = metadataJson(metadata);
  return json ? { metadata: json } : {};
}

/** Tool arguments as JSON; an empty input is `{}` (as the AI SDK reads it); undefined when not JSON. */
export function parseInput(input: unknown): JsonValue | undefined {
  if (typeof input !== "string") return jsonCopy(input);
  if (input.trim() === "") return {};
  try {
    return JSON.parse(input) as JsonValue;
  } catch {
    return undefined;
  }
}

function base64(data: Uint8Array | string): string {
  return typeof data === "string" ? data : bytesToBase64(data);
}

/** The event a stream that breaks the AI SDK's spec ends with. */
export function malformedPart(message: string): ModelStreamEvent {
  return { type: "error", error: malformed(ERROR_PROVIDER, message) };
}
