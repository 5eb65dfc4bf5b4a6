// The one process-wide piece: every live process group of every supervisor in this Node
// process, SIGKILLed when it exits. An `exit` listener can only do synchronous work, so there
// is no grace and no waiting; the kernel finishes the job. A host killed outright (SIGKILL, a
// crash) or ended by a signal it does not handle runs no `exit` listener and leaves them.
import { escapedGroupsSync } from "./process-group.js";

const liveGroups = new Set<number>();

function killLiveGroups(): void {
  // What left a group (a sandbox's own session) is listed first: killed, its members leave it orphaned.
  const groups = [...liveGroups].flatMap((groupId) => [groupId, ...escapedGroupsSync(groupId)]);
  for (const groupId of groups) {
    try {
      process.kill(-groupId, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** Adds a live group; the `exit` listener is installed with the first one. */
export function guardGroup(groupId: number): void {
  if (liveGroups.has(groupId)) return;
  liveGroups.add(groupId);
  if (liveGroups.size === 1) process.on("exit", killLiveGroups);
}

/** Removes a group that is gone; the listener is removed with the last one. */
export function unguardGroup(groupId: number): void {
  if (!liveGroups.delete(groupId)) return;
  if (liveGroups.size === 0) process.off("exit", killLiveGroups);
}
