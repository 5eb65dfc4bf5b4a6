import type { ChildAgentReport } from "../../kernel/session/run-child.js";
import {
  isReportObject,
  jsonBlockOf,
  type SettledToolCall,
  settledToolName,
  ToolReportError,
} from "../../kernel/tools/tool-report.js";

/**
 * The report of a `childAgent` tool's call (`agent_<id>`), parsed from its receipt (or
 * `tool-end` event): the child's status, turns and final text. A child that did not complete
 * is an error result that still carries its report, so it is answered too. Undefined for
 * another tool, and for a call refused or denied before the child ran.
 *
 * @throws ToolReportError (`tool_report_invalid`) for a result that starts like a report but is not one.
 */
export function readChildAgentReport(call: SettledToolCall): ChildAgentReport | undefined {
  const name = settledToolName(call);
  const first = call.result.content[0];
  if (!name.startsWith("agent_") || first?.type !== "text" || !first.text.startsWith("{")) return undefined;
  const value = jsonBlockOf(call);
  if (!isReportObject(value) || value.type !== "child-agent-report" || typeof value.status !== "string") {
    throw new ToolReportError(name, 'it has no "child-agent-report" type and status.');
  }
  return value as unknown as ChildAgentReport;
}
