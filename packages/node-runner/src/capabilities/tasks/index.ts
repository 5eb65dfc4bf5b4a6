export { TaskStoreConflictError, TaskStoreCorruptError, TaskStoreLockedError } from "./errors.js";
export { createFileTaskStore } from "./file-task-store.js";
export { createTaskTools, taskLimits } from "./task-tools.js";
export type { Task, TaskList, TaskPort, TaskStatus, TaskStore } from "./types.js";
