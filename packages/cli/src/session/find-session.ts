import type { SessionSummary } from "@castellan/node-runner";
import { cliAgentId } from "../agent/cli-agent.js";
import { workspaceUrl } from "../home/workspace-url.js";
import { CliError } from "../process/cli-error.js";

/** What `--continue` or `--resume` asks for. */
export type SavedSessionQuery = { readonly continue: true; readonly cwd: string } | { readonly resume: string };

/**
 * The saved Session a query names, from the store's catalog (newest first): `--continue` the
 * most recently updated `castellan.cli` Session whose workspace is `cwd`, `--resume` the one
 * with that id. Throws `session_not_found` (exit 2) when there is none, and
 * `session_agent_mismatch` for a Session another Agent saved.
 */
export function findSavedSession(summaries: readonly SessionSummary[], query: SavedSessionQuery): SessionSummary {
  if ("resume" in query) {
    const found = summaries.find((summary) => summary.sessionId === query.resume);
    if (!found) {
      throw new CliError(
        "session_not_found",
        `there is no saved Session ${JSON.stringify(query.resume)}; castellan sessions --all lists them.`,
      );
    }
    if (found.agentId !== cliAgentId) {
      throw new CliError(
        "session_agent_mismatch",
        `Session ${found.sessionId} belongs to the agent ${JSON.stringify(found.agentId)}, not ${cliAgentId}.`,
      );
    }
    return found;
  }
  const workspace = workspaceUrl(query.cwd);
  const found = summaries.find((summary) => summary.agentId === cliAgentId && summary.params.workspace === workspace);
  if (!found) {
    throw new CliError(
      "session_not_found",
      "there is no saved Session in this directory to continue; run castellan without --continue to start one.",
    );
  }
  return found;
}
