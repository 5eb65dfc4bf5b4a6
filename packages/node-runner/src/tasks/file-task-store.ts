import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { InvalidOptionsError, SessionLockedError } from "../errors.js";
import { acquireLock, type HeldLock } from "../store/file-lock.js";
import { TaskStoreConflictError, TaskStoreCorruptError, TaskStoreLockedError } from "./errors.js";
import type { Task, TaskList, TaskStore } from "./types.js";

const formatVersion = 1;

async function fsyncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes `text` to `path` atomically: a private temporary file, fsync, rename, then the directory's fsync. */
async function writeAtomically(directory: string, path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.${crypto.randomUUID()}.tmp`;
  const handle = await open(temporary, "wx", 0o600);
  try {
    await handle.writeFile(text, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await fsyncDirectory(directory);
}

function isTask(value: unknown): value is Task {
  const task = value as Partial<Task> | null;
  return (
    task !== null &&
    typeof task === "object" &&
    typeof task.id === "string" &&
    typeof task.title === "string" &&
    typeof task.description === "string" &&
    (task.status === "pending" || task.status === "in_progress" || task.status === "completed") &&
    typeof task.progress === "number" &&
    Array.isArray(task.dependsOn) &&
    typeof task.createdAt === "string" &&
    typeof task.updatedAt === "string"
  );
}

/**
 * A `TaskStore` keeping one file per Session, `<encodeURIComponent(sessionId)>.json`, holding
 * `{ formatVersion: 1, revision, tasks }`, in `directory` (made at the first write; declaring
 * and a load of an unknown Session write nothing). Writes are atomic. The first use of a
 * Session takes its writer lock (`<file>.lock`, across processes; a dead holder's lock is taken
 * over) until `close()`: a second writer gets `task_store_locked`. A stale revision is
 * `task_store_conflict`; a corrupt file is `task_store_corrupt` and stays as it is.
 *
 * @throws InvalidOptionsError for a missing directory option.
 */
export function createFileTaskStore(options: { readonly directory: URL | string }): TaskStore {
  if (options?.directory === undefined) throw new InvalidOptionsError("createFileTaskStore: directory is required.");
  const given = options.directory;
  const directory = resolve(given instanceof URL || given.startsWith("file:") ? fileURLToPath(given) : given);
  const locks = new Map<string, Promise<HeldLock>>();
  const fileOf = (sessionId: string) => join(directory, `${encodeURIComponent(sessionId)}.json`);

  const lock = (sessionId: string): Promise<HeldLock> => {
    let held = locks.get(sessionId);
    if (!held) {
      held = (async () => {
        await mkdir(directory, { recursive: true });
        try {
          return await acquireLock(sessionId, `${fileOf(sessionId)}.lock`, { unreadableLockStaleMs: 5_000 });
        } catch (error) {
          if (error instanceof SessionLockedError) {
            throw new TaskStoreLockedError(
              `The task list of Session "${sessionId}" has another writer: ${error.message}`,
              { cause: error },
            );
          }
          throw error;
        }
      })();
      locks.set(sessionId, held);
      held.catch(() => locks.delete(sessionId));
    }
    return held;
  };

  const read = async (sessionId: string): Promise<TaskList> => {
    const file = fileOf(sessionId);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT")
        return Object.freeze({ revision: 0, tasks: Object.freeze([]) });
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new TaskStoreCorruptError(file, "is not JSON", { cause: error });
    }
    const saved = parsed as { formatVersion?: unknown; revision?: unknown; tasks?: unknown } | null;
    if (saved === null || typeof saved !== "object" || saved.formatVersion !== formatVersion) {
      throw new TaskStoreCorruptError(
        file,
        `has format version ${JSON.stringify(saved?.formatVersion)}, not ${formatVersion}`,
      );
    }
    if (!Number.isInteger(saved.revision) || !Array.isArray(saved.tasks) || !saved.tasks.every(isTask)) {
      throw new TaskStoreCorruptError(file, "does not hold a revision and a list of tasks");
    }
    return Object.freeze({ revision: saved.revision as number, tasks: Object.freeze(saved.tasks as Task[]) });
  };

  return Object.freeze({
    directory,
    async load(sessionId: string, loadOptions: { readonly signal?: AbortSignal } = {}) {
      loadOptions.signal?.throwIfAborted();
      await lock(sessionId);
      return await read(sessionId);
    },
    async save(
      sessionId: string,
      tasks: readonly Task[],
      saveOptions: { readonly expectedRevision: number; readonly signal?: AbortSignal },
    ) {
      saveOptions.signal?.throwIfAborted();
      await lock(sessionId);
      const current = await read(sessionId);
      if (current.revision !== saveOptions.expectedRevision) {
        throw new TaskStoreConflictError(sessionId, saveOptions.expectedRevision, current.revision);
      }
      const next: TaskList = Object.freeze({ revision: current.revision + 1, tasks: Object.freeze([...tasks]) });
      await writeAtomically(directory, fileOf(sessionId), `${JSON.stringify({ formatVersion, ...next }, null, 2)}\n`);
      return next;
    },
    async close() {
      const held = [...locks.values()];
      locks.clear();
      for (const lease of held) await (await lease.catch(() => undefined))?.release();
    },
  });
}
