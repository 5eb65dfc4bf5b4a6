// Signalling a command's process group and knowing when it is gone. A command is spawned as
// the leader of a new group (its group id is its pid), so one negative-pid kill reaches every
// process it started that did not leave the group.
import { readdir, readFile } from "node:fs/promises";

/** The `code` of a Node system error (`ESRCH`, ...), if it has one. */
function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Sends `signal` (0 only checks) to every process of group `groupId`. False when the group has
 * no process left (ESRCH); true otherwise, also when the signal was refused (EPERM), because
 * then a process is still there.
 */
export function signalGroup(groupId: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-groupId, signal);
    return true;
  } catch (error) {
    return errorCode(error) !== "ESRCH";
  }
}

/**
 * True while group `groupId` has a process that has not exited. A process that has exited but
 * is not yet reaped (a zombie, whose parent has not waited for it) still answers a signal, and
 * an orphan's reaper may be slow or absent (a container's init that never waits), so where
 * `/proc` exists a group of zombies only counts as gone: they hold no output pipe and run nothing.
 */
async function isGroupAlive(groupId: number): Promise<boolean> {
  if (!signalGroup(groupId, 0)) return false;
  // Twice: a member forked while the first scan was under way may not have been listed.
  return !((await onlyZombiesLeft(groupId)) && (await onlyZombiesLeft(groupId)));
}

/** Resolves once {@link isGroupAlive} is false, checking every few milliseconds, less often as time passes. */
async function groupGone(groupId: number): Promise<void> {
  let interval = 5;
  while (await isGroupAlive(groupId)) {
    await new Promise((resolve) => setTimeout(resolve, interval));
    interval = Math.min(interval * 2, 50);
  }
}

/**
 * Ends group `groupId`: SIGTERM to every process now, SIGKILL to whatever is left after
 * `graceMs`; resolves once the group is gone (it may already be).
 */
export async function terminateGroup(groupId: number, graceMs: number): Promise<void> {
  if (!signalGroup(groupId, "SIGTERM")) return;
  const kill = setTimeout(() => signalGroup(groupId, "SIGKILL"), graceMs);
  try {
    await groupGone(groupId);
  } finally {
    // Once the group is gone its id may be reused by an unrelated process: never signal it again.
    clearTimeout(kill);
  }
}

/** True when `/proc` lists processes of the group and every one of them has exited (state Z or X); false without `/proc`. */
async function onlyZombiesLeft(groupId: number): Promise<boolean> {
  let names: string[];
  try {
    names = await readdir("/proc");
  } catch {
    return false;
  }
  const states = await Promise.all(names.filter((name) => /^\d+$/.test(name)).map((pid) => groupState(pid, groupId)));
  return states.every((state) => state === undefined || state === "Z" || state === "X");
}

/** The state letter of process `pid` when it belongs to group `groupId`; undefined otherwise or when it is gone. */
async function groupState(pid: string, groupId: number): Promise<string | undefined> {
  let stat: string;
  try {
    stat = await readFile(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (name) state ppid pgrp ...": the name may hold spaces and parentheses, so read after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[2]) === groupId ? fields[0] : undefined;
}
