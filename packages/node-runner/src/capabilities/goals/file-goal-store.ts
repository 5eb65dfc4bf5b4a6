import { InvalidOptionsError } from "../../kernel/errors/errors.js";
import { sessionJsonFiles } from "../../kernel/util/session-json-files.js";
import {
  GoalConflictError,
  GoalInvalidError,
  GoalSettlementObsoleteError,
  GoalStoreCorruptError,
  GoalStoreLockedError,
} from "./errors.js";
import type { Goal, GoalControl, GoalSettlement, GoalStore } from "./types.js";

const formatVersion = 1;
/** Longest objective and summary, in characters. */
export const goalLimits = { objective: 4_096, summary: 4_096 } as const;

function isGoal(value: unknown): value is Goal {
  const goal = value as Partial<Goal> | null;
  return (
    goal !== null &&
    typeof goal === "object" &&
    typeof goal.id === "string" &&
    typeof goal.sessionId === "string" &&
    typeof goal.objective === "string" &&
    ["active", "paused", "blocked", "complete"].includes(String(goal.status)) &&
    Number.isInteger(goal.revision) &&
    typeof goal.createdAt === "string" &&
    typeof goal.updatedAt === "string"
  );
}

function checkText(value: unknown, field: string, max: number): string {
  if (typeof value !== "string" || value.trim() === "" || value.length > max) {
    throw new GoalInvalidError(`${field} must be 1-${max.toLocaleString("en")} characters.`);
  }
  return value;
}

/**
 * A `GoalStore` keeping one file per Session, `<encodeURIComponent(sessionId)>.json`, holding
 * `{ formatVersion: 1, goal }` (goal null once deleted), in `directory` (made at the first use;
 * declaring does no I/O). Writes are atomic; one writer per Session (`goal_store_locked`); a
 * corrupt file is `goal_store_corrupt` and left as it is. Separate Sessions share the directory.
 *
 * @throws InvalidOptionsError for a missing directory option.
 */
export function createFileGoalStore(options: { readonly directory: URL | string }): GoalStore {
  if (options?.directory === undefined) throw new InvalidOptionsError("createFileGoalStore: directory is required.");
  const files = sessionJsonFiles({
    directory: options.directory,
    locked: (sessionId, cause) =>
      new GoalStoreLockedError(`The Goal of Session "${sessionId}" has another writer: ${cause.message}`, { cause }),
    corrupt: (file, cause) => new GoalStoreCorruptError(file, "is not JSON", { cause }),
  });
  const read = async (sessionId: string): Promise<Goal | null> => {
    await files.lock(sessionId);
    const saved = (await files.read(sessionId)) as { formatVersion?: unknown; goal?: unknown } | undefined | null;
    if (saved === undefined) return null;
    const file = files.fileOf(sessionId);
    if (saved === null || typeof saved !== "object" || saved.formatVersion !== formatVersion) {
      throw new GoalStoreCorruptError(
        file,
        `has format version ${JSON.stringify(saved?.formatVersion)}, not ${formatVersion}`,
      );
    }
    if (saved.goal !== null && !isGoal(saved.goal)) throw new GoalStoreCorruptError(file, "does not hold a Goal");
    return saved.goal === null ? null : Object.freeze(saved.goal as Goal);
  };
  const write = async (sessionId: string, goal: Goal | null): Promise<Goal | null> => {
    await files.write(sessionId, { formatVersion, goal });
    return goal === null ? null : Object.freeze(goal);
  };
  const changed = (goal: Goal, change: Partial<Goal>): Goal => ({
    ...goal,
    ...change,
    revision: goal.revision + 1,
    updatedAt: new Date().toISOString(),
  });
  return Object.freeze({
    directory: files.directory,
    read: (sessionId: string, readOptions: { readonly signal?: AbortSignal } = {}) => {
      readOptions.signal?.throwIfAborted();
      return read(sessionId);
    },
    async settle(settlement: GoalSettlement, settleOptions: { readonly signal?: AbortSignal } = {}) {
      settleOptions.signal?.throwIfAborted();
      const summary = checkText(settlement.summary, "summary", goalLimits.summary);
      const current = await read(settlement.sessionId);
      if (!current) throw new GoalSettlementObsoleteError(null, "the Session has no Goal (it was deleted)");
      if (current.id !== settlement.goalId)
        throw new GoalSettlementObsoleteError(current, "the Goal was replaced by another");
      if (current.objective !== settlement.objective)
        throw new GoalSettlementObsoleteError(current, "the Goal's objective was edited");
      if (current.status !== "active")
        throw new GoalSettlementObsoleteError(current, `the Goal is ${current.status}, not active`);
      if (settlement.status !== "complete" && settlement.status !== "blocked")
        throw new GoalInvalidError('status must be "complete" or "blocked".');
      return (await write(settlement.sessionId, changed(current, { status: settlement.status, summary }))) as Goal;
    },
    async control(control: GoalControl, controlOptions: { readonly signal?: AbortSignal } = {}) {
      controlOptions.signal?.throwIfAborted();
      const { sessionId } = control;
      const current = await read(sessionId);
      const unfinished = current && current.status !== "complete" ? current : null;
      switch (control.action) {
        case "open": {
          const objective = checkText(control.objective, "objective", goalLimits.objective);
          if (unfinished) {
            if (unfinished.objective === objective) return unfinished;
            throw new GoalConflictError(unfinished);
          }
          const now = new Date().toISOString();
          return write(sessionId, {
            id: `goal-${crypto.randomUUID()}`,
            sessionId,
            objective,
            status: "active",
            revision: 1,
            createdAt: now,
            updatedAt: now,
          });
        }
        case "edit": {
          const objective = checkText(control.objective, "objective", goalLimits.objective);
          if (!current) throw new GoalInvalidError(`Session "${sessionId}" has no Goal to edit.`);
          return write(sessionId, changed(current, { objective }));
        }
        case "pause":
          if (!current) throw new GoalInvalidError(`Session "${sessionId}" has no Goal to pause.`);
          return write(sessionId, changed(current, { status: "paused" }));
        case "resume":
          if (!current || (current.status !== "paused" && current.status !== "blocked")) {
            throw new GoalInvalidError(`Session "${sessionId}" has no paused or blocked Goal to resume.`);
          }
          return write(sessionId, changed(current, { status: "active" }));
        case "delete":
          return write(sessionId, null);
        default:
          throw new GoalInvalidError(
            `Unknown Goal action ${JSON.stringify((control as { action?: unknown }).action)}.`,
          );
      }
    },
    close: () => files.close(),
  });
}
