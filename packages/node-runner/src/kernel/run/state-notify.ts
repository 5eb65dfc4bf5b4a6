import type { JsonValue } from "@castellan/harness";
import { CastellanError, errorMessage } from "@castellan/harness";
import type { SessionContext } from "../context/session-context.js";
import type { RunJournal } from "../journal/run-journal.js";

/**
 * Publishes committed state: a `state-changed` event, then the `stateChanged` hooks. The
 * change is already saved, so a failing hook cannot undo it; the failure is reported as a
 * `hook-failed` event.
 */
export async function notifyStateChanged(
  context: SessionContext,
  journal: RunJournal,
  change: {
    readonly runId: string;
    readonly turn: number;
    readonly source: "host" | "tool";
    readonly changes: Readonly<Record<string, JsonValue>>;
  },
): Promise<void> {
  journal.emit({ kind: "state-changed", ...change });
  for (const hook of context.hooks.stateChanged) {
    try {
      await hook({ sessionId: context.sessionId, ...change });
    } catch (error) {
      reportHookFailure(journal, change.runId, "stateChanged", error);
    }
  }
}

/** Emits a `hook-failed` event: a plugin hook (or work it does on the side) failed, and the Run goes on. */
export function reportHookFailure(journal: RunJournal, runId: string, hook: string, error: unknown): void {
  journal.emit({
    kind: "hook-failed",
    runId,
    hook,
    error: {
      code: error instanceof CastellanError ? error.code : "hook_failed",
      message: errorMessage(error),
    },
  });
}
