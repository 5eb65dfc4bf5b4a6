import { ToolInputError } from "@castellan/harness";
import { type GuidanceTracker, guidanceTracker, type WorkspaceInstructionsPlugin } from "./instructions-plugin.js";

/** Where a tool call is: the Session and Run whose guidance applies. */
export interface GuidanceCall {
  readonly sessionId: string;
  readonly runId: string;
}

/** The tracker of an `instructions` option, checked when a tool factory is called. */
export function trackerOf(instructions: WorkspaceInstructionsPlugin, where: string): GuidanceTracker {
  const tracker = guidanceTracker(instructions);
  if (!tracker) {
    throw new TypeError(`${where}: instructions must be the object createWorkspaceInstructionsPlugin returned.`);
  }
  return tracker;
}

/** Refuses a call when the plugin was never registered in a Runner, so no guidance could reach the model. */
export function assertRegistered(tracker: GuidanceTracker): void {
  if (tracker.registered) return;
  throw new ToolInputError(
    "instructions_not_registered",
    "The workspace instructions plugin these tools use is not registered in the Runner, so repository guidance cannot reach the model. The application must add it to the Runner's plugins; this call cannot run until it does.",
  );
}

/**
 * Reads, for this Run, the guidance of every directory from the root down to `directory`
 * (segments) that was not looked in yet: the next model request carries what was found.
 */
export async function discoverGuidance(
  tracker: GuidanceTracker,
  call: GuidanceCall,
  directory: readonly string[],
): Promise<void> {
  assertRegistered(tracker);
  await tracker.run(call.sessionId, call.runId).discover(directory);
}

/**
 * Discovers the guidance governing each directory, then refuses (`guidance_pending`) when any
 * of it has not been in a model request yet: an edit waits until the model has seen the
 * rules for the files it changes. Nothing is written or asked before this passes.
 */
export async function assertGuidanceSeen(
  tracker: GuidanceTracker,
  call: GuidanceCall,
  directories: readonly (readonly string[])[],
): Promise<void> {
  assertRegistered(tracker);
  const guidance = tracker.run(call.sessionId, call.runId);
  const pending = new Set<string>();
  for (const directory of directories) {
    await guidance.discover(directory);
    for (const path of guidance.pendingFor(directory)) pending.add(path);
  }
  if (pending.size === 0) return;
  const names = [...pending].map((path) => JSON.stringify(path)).join(", ");
  throw new ToolInputError(
    "guidance_pending",
    `Guidance applies to this change that you have not seen yet: ${names}. It will be in your next context; read it, then make the change again if it still fits.`,
  );
}
