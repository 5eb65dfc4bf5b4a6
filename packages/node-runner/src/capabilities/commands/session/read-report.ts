import {
  isReportObject,
  jsonBlockOf,
  type SettledToolCall,
  settledToolName,
  ToolReportError,
} from "../../../kernel/tools/tool-report.js";
import type { CommandSessionReport } from "./report.js";

const commandTools: ReadonlySet<string> = new Set(["exec_command", "command_session"]);

/**
 * The report of an `exec_command` or `command_session` call, parsed from its receipt (or its
 * `tool-end` event): state, outcome, exit code and the bounded output, typed. Undefined for a
 * call of another tool and for a result that is an error (a refusal, a denial, an invalid
 * input: its text says why), so a host never parses the text itself.
 *
 * @throws ToolReportError (`tool_report_invalid`) for a successful command result that is not a report.
 */
export function readCommandReport(call: SettledToolCall): CommandSessionReport | undefined {
  const name = settledToolName(call);
  if (!commandTools.has(name) || call.result.isError) return undefined;
  const value = jsonBlockOf(call);
  if (!isReportObject(value) || value.type !== "command-session-report" || typeof value.commandId !== "string") {
    throw new ToolReportError(name, 'it has no "command-session-report" type and commandId.');
  }
  return value as unknown as CommandSessionReport;
}
