import { InvalidOptionsError } from "../../kernel/errors/errors.js";
import { sessionJsonFiles } from "../../kernel/util/session-json-files.js";
import { TaskStoreConflictError, TaskStoreCorruptError, TaskStoreLockedError } from "./errors.js";
import type { Task, TaskList, TaskStore } from "./types.js";

const formatVersion = 1;

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
 * `{ formatVersion: 1, revision, tasks }`, in `directory` (made at the first use; declaring
 * writes nothing). Writes are atomic. The first use of a Session takes its writer lock
 * (`<file>.lock`, across processes; a dead holder's lock is taken over) until `close()`: a
 * second writer gets `task_store_locked`. A stale revision is `task_store_conflict`; a corrupt
 * file is `task_store_corrupt` and stays as it is.
 *
 * @throws InvalidOptionsError for a missing directory option.
 */
export function createFileTaskStore(options: { readonly directory: URL | string }): TaskStore {
  if (options?.directory === undefined) throw new InvalidOptionsError("createFileTaskStore: directory is required.");
  const files = sessionJsonFiles({
    directory: options.directory,
    locked: (sessionId, cause) =>
      new TaskStoreLockedError(`The task list of Session "${sessionId}" has another writer: ${cause.message}`, {
        cause,
      }),
    corrupt: (file, cause) => new TaskStoreCorruptError(file, "is not JSON", { cause }),
  });

  const read = async (sessionId: string): Promise<TaskList> => {
    const saved = (await files.read(sessionId)) as
      | { formatVersion?: unknown; revision?: unknown; tasks?: unknown }
      | undefined
      | null;
    if (saved === undefined) return Object.freeze({ revision: 0, tasks: Object.freeze([]) });
    const file = files.fileOf(sessionId);
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
    directory: files.directory,
    async load(sessionId: string, loadOptions: { readonly signal?: AbortSignal } = {}) {
      loadOptions.signal?.throwIfAborted();
      await files.lock(sessionId);
      return await read(sessionId);
    },
    async save(
      sessionId: string,
      tasks: readonly Task[],
      saveOptions: { readonly expectedRevision: number; readonly signal?: AbortSignal },
    ) {
      saveOptions.signal?.throwIfAborted();
      await files.lock(sessionId);
      const current = await read(sessionId);
      if (current.revision !== saveOptions.expectedRevision) {
        throw new TaskStoreConflictError(sessionId, saveOptions.expectedRevision, current.revision);
      }
      const next: TaskList = Object.freeze({ revision: current.revision + 1, tasks: Object.freeze([...tasks]) });
      await files.write(sessionId, { formatVersion, ...next });
      return next;
    },
    close: () => files.close(),
  });
}
