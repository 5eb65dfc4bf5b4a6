// Signalling a command's process group and knowing when it is gone. A command is spawned as
// the leader of a new group (its group id is its pid), so one negative-pid kill reaches every
// process it started that did not leave the group. A descendant that left it (bubblewrap's
// --new-session does) is found through /proc before the signal and its group ended too:
// otherwise its parent's death leaves it running, and a sandbox's helpers (the proxy bridges)
// keep bubblewrap alive for good.
import { readdirSync, readFileSync } from "node:fs";
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
  if (!signalGroup(groupId, 0)) return;
  // Listed while the tree is whole: once the group's members die, their escaped children are orphans.
  const groups = [groupId, ...(await escapedGroups(groupId))];
  const live = groups.filter((group) => signalGroup(group, "SIGTERM"));
  if (live.length === 0) return;
  const kill = setTimeout(() => {
    for (const group of live) signalGroup(group, "SIGKILL");
  }, graceMs);
  try {
    await Promise.all(live.map((group) => groupGone(group)));
  } finally {
    // Once a group is gone its id may be reused by an unrelated process: never signal it again.
    clearTimeout(kill);
  }
}

/** One process as `/proc/<pid>/stat` tells it. */
interface ProcessEntry {
  readonly pid: number;
  readonly parent: number;
  readonly group: number;
}

/** One `/proc/<pid>/stat` text read: pid, parent and group (the name may hold spaces and parentheses). */
function entryOf(pid: string, stat: string): ProcessEntry {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { pid: Number(pid), parent: Number(fields[1]), group: Number(fields[2]) };
}

/** Every process `/proc` lists, read synchronously (for an `exit` listener); none without `/proc`. */
function processTableSync(): ProcessEntry[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const entries: ProcessEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      entries.push(entryOf(name, readFileSync(`/proc/${name}/stat`, "utf8")));
    } catch {
      // Gone meanwhile.
    }
  }
  return entries;
}

/** Every process `/proc` lists (none without `/proc`). */
async function processTable(): Promise<ProcessEntry[]> {
  let names: string[];
  try {
    names = await readdir("/proc");
  } catch {
    return [];
  }
  const entries = await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => undefined);
        return stat === undefined ? undefined : entryOf(name, stat);
      }),
  );
  return entries.filter((entry): entry is ProcessEntry => entry !== undefined);
}

/**
 * The groups of the descendants of group `groupId`'s members that left it (a new session or
 * group of their own), found by walking parent links in `/proc`; none without `/proc`.
 */
export async function escapedGroups(groupId: number): Promise<number[]> {
  return escapedFrom(await processTable(), groupId);
}

/** {@link escapedGroups}, read synchronously: for an `exit` listener, which cannot wait. */
export function escapedGroupsSync(groupId: number): number[] {
  return escapedFrom(processTableSync(), groupId);
}

function escapedFrom(table: readonly ProcessEntry[], groupId: number): number[] {
  const children = new Map<number, ProcessEntry[]>();
  for (const entry of table) children.set(entry.parent, [...(children.get(entry.parent) ?? []), entry]);
  const escaped = new Set<number>();
  const queue = table.filter((entry) => entry.group === groupId).map((entry) => entry.pid);
  const seen = new Set(queue);
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      if (child.group !== groupId && child.group > 1) escaped.add(child.group);
      queue.push(child.pid);
    }
  }
  return [...escaped];
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
