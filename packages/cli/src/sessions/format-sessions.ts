import { fileURLToPath } from "node:url";
import { escapeForTerminal } from "@castellan/node-runner";
import type { SessionRow } from "./session-row.js";

/** A workspace param as the path it names (the URL itself when it is no file URL). */
function workspacePath(workspace: string | null): string {
  if (workspace === null) return "-";
  try {
    return fileURLToPath(workspace);
  } catch {
    return workspace;
  }
}

/**
 * The rows as an aligned table, one Session per line, with a heading; the workspace column
 * only when `withWorkspace` (every Session listed). No Session: one line saying so.
 */
export function formatSessions(rows: readonly SessionRow[], withWorkspace: boolean): string {
  if (rows.length === 0) return withWorkspace ? "No saved Sessions.\n" : "No saved Sessions in this directory.\n";
  const heading = [
    "id",
    ...(withWorkspace ? ["workspace"] : []),
    "updated",
    "runs",
    "last run",
    "approvals",
    "first input",
  ];
  // Ids and inputs are the user's text: no control or bidi character reaches the terminal, and no line break splits a row.
  const cell = (text: string) => escapeForTerminal(text.replace(/[\n\t]/g, " "));
  const lines = rows.map((row) =>
    [
      row.sessionId,
      ...(withWorkspace ? [workspacePath(row.workspace)] : []),
      row.updatedAt,
      String(row.runs),
      row.lastRunStatus ?? "-",
      String(row.pendingApprovals),
      row.firstInput,
    ].map(cell),
  );
  const widths = heading.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => (line[column] ?? "").length)),
  );
  const render = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join("  ")
      .trimEnd();
  return `${[heading, ...lines].map(render).join("\n")}\n`;
}
