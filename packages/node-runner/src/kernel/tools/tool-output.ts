import { type ContentBlock, isContentBlock, type ToolOutput, type ToolResult } from "@castellan/harness";

/** Normalizes what a tool returned into a result: see `ToolOutput` for the accepted shapes. */
export function toToolResult(output: ToolOutput): ToolResult {
  if (output === undefined || output === null) return { content: [], isError: false };
  if (typeof output === "string") return { content: [{ type: "text", text: output }], isError: false };
  if (Array.isArray(output) && output.every(isContentBlock)) return { content: copyBlocks(output), isError: false };
  if (typeof output === "object" && !Array.isArray(output) && "content" in output) {
    const { content, isError } = output as { content: unknown; isError?: unknown };
    if (typeof content === "string") return { content: [{ type: "text", text: content }], isError: isError === true };
    if (Array.isArray(content) && content.every(isContentBlock)) {
      return { content: copyBlocks(content), isError: isError === true };
    }
  }
  return { content: [{ type: "text", text: JSON.stringify(output) }], isError: false };
}

/** An error result with one text block. */
export function errorResult(message: string): ToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

function copyBlocks(blocks: readonly ContentBlock[]): ContentBlock[] {
  return blocks.map((block) => ({ ...block }));
}
