import { createFileSessionStore } from "@castellan/node-runner";
import { sessionsDirectory } from "../home/castellan-home.js";
import { workspaceUrl } from "../home/workspace-url.js";
import { type SessionRow, sessionRow } from "./session-row.js";

/** What `castellan sessions` lists. */
export interface ListSessionsOptions {
  /** The `castellan` home (`castellanHome`). */
  readonly home: string;
  /** The directory whose Sessions are listed, unless `all`. */
  readonly cwd: string;
  /** List every Session, whatever its workspace. Default false. */
  readonly all?: boolean;
  /** At most this many rows, newest first. Default 20; at least 1. */
  readonly limit?: number;
  readonly signal?: AbortSignal;
}

/** Default of {@link ListSessionsOptions.limit}. */
export const defaultSessionsLimit = 20;

/**
 * The rows of the saved Sessions, newest first, read through the store's catalog: no Session
 * is locked, opened or changed, so one that a live process runs is listed as it runs.
 */
export async function listSessions(options: ListSessionsOptions): Promise<SessionRow[]> {
  const store = createFileSessionStore({ directory: sessionsDirectory(options.home) });
  const workspace = workspaceUrl(options.cwd);
  const limit = options.limit ?? defaultSessionsLimit;
  const signal = options.signal;
  const summaries = (await store.list(signal ? { signal } : {})).filter(
    (summary) => options.all || summary.params.workspace === workspace,
  );
  const rows: SessionRow[] = [];
  for (const summary of summaries.slice(0, limit)) {
    rows.push(sessionRow(summary, await store.read(summary.sessionId, signal ? { signal } : {})));
  }
  return rows;
}
