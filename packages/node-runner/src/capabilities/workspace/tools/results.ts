import { isToolInputError, type ToolResult } from "@castellan/harness";

/** A tool result of one text block. */
export function textResult(text: string, isError = false): ToolResult {
  return { content: [{ type: "text", text }], isError };
}

/** A JSON page as the tool's result: compact JSON, one text block. */
export function jsonResult(value: unknown): ToolResult {
  return textResult(JSON.stringify(value));
}

/**
 * Runs a tool's body and turns a refusal (`ToolInputError`) into the error result the model
 * reads: its code, then what to do next. Anything else propagates (the Runner reports it as
 * the tool's failure).
 */
export async function refusalsAsResults(body: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await body();
  } catch (error) {
    if (isToolInputError(error)) return textResult(error.resultText, true);
    throw error;
  }
}

/** UTF-8 bytes of a value's compact JSON text. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}
