import type { JsonValue } from "@castellan/harness";
import { CastellanError } from "@castellan/harness";
import type { Emit, SessionCore } from "../session/session-core.js";

/**
 * Publishes committed state: a `state-changed` event, then the `stateChanged` hooks. The
 * change is already saved, so a failing hook cannot undo it; the failure is reported as a
 * `hook-failed` event.
 */
export async function notifyStateChanged(
  core: SessionCore,
  change: {
    readonly runId: string;
    readonly turn: number;
    readonly source: "host" | "tool";
    readonly changes: Readonly<Record<string, JsonValue>>;
  },
  emit: Emit,
): Promise<void> {
  emit({ kind: "state-changed", ...change });
  for (const hook of core.registry.hooks.stateChanged) {
    try {
      await hook({ sessionId: core.sessionId, ...change });
    } catch (error) {
      emit({
        kind: "hook-failed",
        runId: change.runId,
        hook: "stateChanged",
        error: {
          code: error instanceof CastellanError ? error.code : "hook_failed",
          message: error instanceof Error ? error.message : String(error),
        },
      });
    }
  }
}
