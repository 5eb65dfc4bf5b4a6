// The one process-wide piece: every live process group of every supervisor in this Node
// process, SIGKILLed when it exits. An `exit` listener can only do synchronous work, so there
// is no grace and no waiting; the kernel finishes the job. A host killed outright (SIGKILL, a
// crash) or ended by a signal it does not handle runs no `exit` listener and leaves them (a
// brokered command's are then ended by the broker). The PID namespace inits that commands
// reported are killed first: each takes its whole namespace with it.
import { killNamespaceInit, type NamespaceInit } from "./namespace-init.js";
import { escapedGroupsSync } from "./process-group.js";

const liveGroups = new Set<number>();
const liveInits = new Set<NamespaceInit>();

function killLiveGroups(): void {
  for (const init of liveInits) killNamespaceInit(init);
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

const guarded = () => liveGroups.size + liveInits.size;

/** Adds a live group; the `exit` listener is installed with the first group or init. */
export function guardGroup(groupId: number): void {
  if (liveGroups.has(groupId)) return;
  liveGroups.add(groupId);
  if (guarded() === 1) process.on("exit", killLiveGroups);
}

/** Removes a group that is gone; the listener is removed with the last group or init. */
export function unguardGroup(groupId: number): void {
  if (!liveGroups.delete(groupId)) return;
  if (guarded() === 0) process.off("exit", killLiveGroups);
}

/** Adds a namespace init a command reported, until it is gone. */
export function guardNamespaceInit(init: NamespaceInit): void {
  if (liveInits.has(init)) return;
  liveInits.add(init);
  if (guarded() === 1) process.on("exit", killLiveGroups);
}

/** Removes a namespace init that is gone. */
export function unguardNamespaceInit(init: NamespaceInit): void {
  if (!liveInits.delete(init)) return;
  if (guarded() === 0) process.off("exit", killLiveGroups);
}
