import type { ContentBlock, Redactor, ToolResult } from "@castellan/harness";

/** What the call returned, as the SDK parsed it. */
export interface McpCallResult {
  readonly content?: readonly Record<string, unknown>[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

const imageTypes = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

function sizeOf(base64: string): number {
  return Buffer.byteLength(base64, "base64");
}

/**
 * A server's result as Castellan's: text stays text; an image is an image block (or a note over
 * `maxImageBytes`, or for a type the models cannot see); a resource link or an embedded text
 * resource is text with its URI; a blob resource or audio is a note with its type and size;
 * `structuredContent` is JSON text when there is no content. The text in all is bounded by
 * `maxResultBytes`, with a note of what was cut; `isError` is kept; secrets are redacted.
 */
export function convertResult(
  result: McpCallResult,
  limits: { readonly maxResultBytes: number; readonly maxImageBytes: number },
  redactor: Redactor,
): ToolResult {
  const blocks: ContentBlock[] = [];
  const text = (value: string) => blocks.push({ type: "text", text: value });
  for (const item of result.content ?? []) {
    switch (item.type) {
      case "text":
        text(String(item.text ?? ""));
        break;
      case "image": {
        const data = String(item.data ?? "");
        const mediaType = String(item.mimeType ?? "");
        if (!imageTypes.has(mediaType))
          text(`[image of type ${mediaType || "unknown"}, ${sizeOf(data)} bytes, not shown]`);
        else if (sizeOf(data) > limits.maxImageBytes) {
          text(`[image ${mediaType}, ${sizeOf(data)} bytes, over the ${limits.maxImageBytes}-byte limit, not shown]`);
        } else blocks.push({ type: "image", mediaType: mediaType as "image/png", data });
        break;
      }
      case "audio":
        text(`[audio ${String(item.mimeType ?? "unknown")}, ${sizeOf(String(item.data ?? ""))} bytes, not shown]`);
        break;
      case "resource_link": {
        const name = item.name ? ` ${String(item.name)}` : "";
        const description = item.description ? `: ${String(item.description)}` : "";
        text(`[resource link${name}] ${String(item.uri ?? "")}${description}`);
        break;
      }
      case "resource": {
        const resource = (item.resource ?? {}) as Record<string, unknown>;
        const uri = String(resource.uri ?? "");
        if (typeof resource.text === "string") text(`[resource ${uri}]\n${resource.text}`);
        else {
          const blob = String(resource.blob ?? "");
          text(`[resource ${uri}: ${String(resource.mimeType ?? "binary")}, ${sizeOf(blob)} bytes, not shown]`);
        }
        break;
      }
      default:
        text(`[content of type ${String(item.type)}, not shown]`);
    }
  }
  if (blocks.length === 0 && result.structuredContent !== undefined) text(JSON.stringify(result.structuredContent));
  return { content: boundText(blocks, limits.maxResultBytes, redactor), isError: result.isError === true };
}

/** Redacts every text block and keeps at most `maxBytes` of text in all, noting the cut. */
export function boundText(blocks: readonly ContentBlock[], maxBytes: number, redactor: Redactor): ContentBlock[] {
  let left = maxBytes;
  let dropped = 0;
  const kept: ContentBlock[] = [];
  for (const block of blocks) {
    if (block.type !== "text") {
      kept.push(block);
      continue;
    }
    const text = redactor.scrub(block.text);
    const bytes = Buffer.from(text, "utf8");
    if (bytes.length <= left) {
      kept.push({ type: "text", text });
      left -= bytes.length;
      continue;
    }
    // Cut on a character boundary: a continuation byte never starts the dropped part.
    let cut = left;
    while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) cut--;
    if (cut > 0) kept.push({ type: "text", text: bytes.subarray(0, cut).toString("utf8") });
    dropped += bytes.length - cut;
    left = 0;
  }
  if (dropped > 0)
    kept.push({ type: "text", text: `[${dropped} more bytes of the result were cut at the ${maxBytes}-byte limit]` });
  return kept;
}
