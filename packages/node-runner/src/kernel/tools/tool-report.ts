import { CastellanError, type ToolResult } from "@castellan/harness";

/**
 * A settled tool call as a host has it: a receipt (`name`, from `session.inspect()` or
 * `ctx.toolCalls`) or a `tool-end` event (`toolName`), with the result the model was given.
 */
export type SettledToolCall = { readonly result: ToolResult } & (
  | { readonly name: string }
  | { readonly toolName: string }
);

/** A built-in tool's result that is not the JSON report that tool writes. */
export class ToolReportError extends CastellanError {
  constructor(toolName: string, detail: string) {
    super("tool_report_invalid", `The result of "${toolName}" is not its report: ${detail}`);
  }
}

/** The tool name of a receipt or a `tool-end` event. */
export function settledToolName(call: SettledToolCall): string {
  return "name" in call ? call.name : call.toolName;
}

/**
 * The JSON value of text block `index` of a call's result.
 *
 * @throws ToolReportError (`tool_report_invalid`) when that block is missing, not text, or not JSON.
 */
export function jsonBlockOf(call: SettledToolCall, index = 0): unknown {
  const block = call.result?.content?.[index];
  const name = settledToolName(call);
  if (block?.type !== "text") throw new ToolReportError(name, `block ${index} is not a text block.`);
  try {
    return JSON.parse(block.text) as unknown;
  } catch {
    throw new ToolReportError(name, `block ${index} is not JSON.`);
  }
}

/** True for a plain JSON object (not null, not an array). */
export function isReportObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
