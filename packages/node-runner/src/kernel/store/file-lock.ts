import { randomUUID } from "node:crypto";
import { link, open, readdir, readFile, stat, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { SessionLockedError } from "../errors/errors.js";

// One writer per Session, across processes, through a lock file created with "wx" (fails if
// it exists). It says who holds it: {"pid","host","at","started"}; "started" is when the
// holding process started, which tells a live lock of this process (another thread, or
// another copy of this module) from one left by an earlier process that had the same pid, as
// happens when a container restarts and its main process is pid 1 again.

/** The end of a staging file's name: `<lock path>.<pid>.<uuid>.tmp`. */
const stagingSuffix = ".tmp";

/**
 * Removes the staging files a writer killed while taking this lock left behind: those whose
 * content names a process on this host that no longer runs, and unreadable ones (killed while
 * writing it) at least `unreadableLockStaleMs` old. Called while holding the lock, so no
 * writer of this Session is taking it; a live writer's staging file is never removed.
 */
async function removeAbandonedStaging(path: string, options: LockOptions): Promise<void> {
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith(stagingSuffix)) continue;
    const staging = join(dirname(path), name);
    const existing = await readExisting(staging).catch(() => undefined);
    if (existing === undefined) continue;
    const holder = parseHolder(existing.text);
    const abandoned =
      holder === undefined
        ? existing.ageMs >= options.unreadableLockStaleMs
        : holder.host === hostname() && holder.pid !== process.pid && !isAlive(holder.pid);
    if (abandoned) await unlink(staging).catch(() => undefined);
  }
}

/** Bounds of lock taking. */
export interface LockOptions {
  /**
   * A lock file whose content cannot be read as a lock and that was last written at least
   * this many milliseconds ago is stale (its writer died between creating and filling it).
   * A younger one is taken to be being written, so the Session is reported locked.
   */
  readonly unreadableLockStaleMs: number;
}

/** A lock this process holds. */
export interface HeldLock {
  /** Removes the lock file if it is still this holder's; idempotent. */
  release(): Promise<void>;
}

/** Lock paths held or being taken in this process (shared by every copy of this module in a thread). */
const heldPaths = sharedHeldPaths();

function sharedHeldPaths(): Set<string> {
  const key = Symbol.for("castellan.node-runner.session-locks");
  const slots = globalThis as Record<symbol, unknown>;
  if (!(slots[key] instanceof Set)) slots[key] = new Set<string>();
  return slots[key] as Set<string>;
}

const processStartedAt = Date.now() - process.uptime() * 1000;
/** How far two computations of this process's start time may drift apart (clock granularity). */
const sameProcessToleranceMs = 1000;

interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly started?: string;
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder> | null;
    if (typeof value !== "object" || value === null) return undefined;
    if (!Number.isInteger(value.pid) || (value.pid as number) <= 0 || typeof value.host !== "string") return undefined;
    return value as LockHolder;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else. Anything but ESRCH is taken as
    // alive, because wrongly breaking a live writer's lock is the worse mistake.
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * Creates the lock file with its content in one step: the content is written to a private
 * file first, then hard-linked to the lock path, which fails if a lock exists. A writer killed
 * at any point therefore never leaves an empty or half-written lock. Filesystems without hard
 * links fall back to creating the lock with "wx" and writing it.
 */
async function tryCreate(path: string, content: string): Promise<boolean> {
  const staging = `${path}.${process.pid}.${randomUUID()}${stagingSuffix}`;
  await writeFile(staging, content, { flag: "wx", mode: 0o600 });
  try {
    await link(staging, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP" || code === "ENOSYS") {
      return await createInPlace(path, content);
    }
    throw error;
  } finally {
    await unlink(staging).catch(() => {});
  }
}

async function createInPlace(path: string, content: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    await handle.writeFile(content);
  } catch (error) {
    await handle.close().catch(() => {});
    await unlink(path).catch(() => {});
    throw error;
  }
  await handle.close();
  return true;
}

/** The existing lock's text and age, or undefined when it vanished meanwhile. */
async function readExisting(path: string): Promise<{ text: string; ageMs: number } | undefined> {
  try {
    const [text, info] = await Promise.all([readFile(path, "utf8"), stat(path)]);
    return { text, ageMs: Date.now() - info.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Undefined when the existing lock is stale, else the reason it holds. */
function judge(path: string, text: string, ageMs: number, options: LockOptions): string | undefined {
  const holder = parseHolder(text);
  if (holder === undefined) {
    if (ageMs >= options.unreadableLockStaleMs) return undefined;
    return `its lock file ${path} is not readable as a lock and was written ${Math.round(ageMs)} ms ago, so another writer may be creating it`;
  }
  if (holder.host !== hostname()) {
    return `process ${holder.pid} on host "${holder.host}" holds it (${path}); a process on another host cannot be checked, so remove the lock file if that writer is gone`;
  }
  if (holder.pid === process.pid) {
    const started = holder.started === undefined ? Number.NaN : Date.parse(holder.started);
    // Not in heldPaths, so not this thread's copy of the store: either another thread of this
    // process holds it, or an earlier process with this pid left it behind.
    if (Number.isNaN(started) || Math.abs(started - processStartedAt) < sameProcessToleranceMs) {
      return `another writer in this process (pid ${holder.pid}, another thread or module copy) holds it`;
    }
    return undefined;
  }
  if (isAlive(holder.pid)) return `process ${holder.pid} holds it (${path})`;
  return undefined;
}

/**
 * Whether a writer holds the lock at `path` now: this thread holds or is taking it, or its
 * file is one `acquireLock` would not take over. Reads only; for a catalog.
 */
export async function isLockHeld(path: string, options: LockOptions): Promise<boolean> {
  if (heldPaths.has(path)) return true;
  const existing = await readExisting(path);
  return existing !== undefined && judge(path, existing.text, existing.ageMs, options) !== undefined;
}

function locked(sessionId: string, reason: string): SessionLockedError {
  return new SessionLockedError(`Session "${sessionId}" is locked: ${reason}.`);
}

/**
 * Takes the writer lock of a Session at `path`, or rejects with a SessionLockedError saying
 * who holds it. A lock left by a dead process on this host (a killed writer) is stale and is
 * taken over: it is re-read, removed only if unchanged, then created again with "wx"; losing
 * a race there reports the Session locked. (Between the re-read and the removal another
 * process could also judge it stale; the window is a few system calls wide.)
 */
export async function acquireLock(sessionId: string, path: string, options: LockOptions): Promise<HeldLock> {
  if (heldPaths.has(path)) {
    throw locked(sessionId, "another writer in this process holds it open");
  }
  heldPaths.add(path);
  try {
    const content = JSON.stringify({
      pid: process.pid,
      host: hostname(),
      at: new Date().toISOString(),
      started: new Date(processStartedAt).toISOString(),
    });
    if (!(await tryCreate(path, content))) {
      const existing = await readExisting(path);
      if (existing !== undefined) {
        const reason = judge(path, existing.text, existing.ageMs, options);
        if (reason !== undefined) throw locked(sessionId, reason);
        const again = await readExisting(path);
        if (again !== undefined && again.text !== existing.text) {
          throw locked(sessionId, `another writer took over its stale lock ${path} first`);
        }
        await unlink(path).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== "ENOENT") throw error;
        });
      }
      if (!(await tryCreate(path, content))) throw locked(sessionId, `another writer took its lock ${path} first`);
    }
    await removeAbandonedStaging(path, options);
    return { release: releaser(path, content) };
  } catch (error) {
    heldPaths.delete(path);
    throw error;
  }
}

function releaser(path: string, content: string): () => Promise<void> {
  let released: Promise<void> | undefined;
  return () => {
    released ??= (async () => {
      try {
        // Remove it only if it is still ours: if another process wrongly took it over, its
        // lock must survive our close.
        const current = await readFile(path, "utf8").catch(() => undefined);
        if (current === content) {
          await unlink(path).catch((error: NodeJS.ErrnoException) => {
            if (error.code !== "ENOENT") throw error;
          });
        }
      } finally {
        heldPaths.delete(path);
      }
    })();
    return released;
  };
}
