import { join } from "node:path";
import {
  CastellanError,
  defineTool,
  type JsonObject,
  type Tool,
  type ToolContext,
  ToolInputError,
} from "@castellan/harness";
import { createFileTaskStore } from "./file-task-store.js";
import type { Task, TaskList, TaskPort, TaskStatus } from "./types.js";

/** The bounds of a task list. */
export const taskLimits = { title: 200, description: 4_000, dependsOn: 32, tasks: 200 } as const;

function invalid(message: string): ToolInputError {
  return new ToolInputError("task_invalid", `${message} Nothing was written.`);
}

function checkText(value: unknown, field: string, max: number, required: boolean): string | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== "string" || (required && value.trim() === "") || value.length > max) {
    throw invalid(
      `${field} must be ${required ? "a non-empty string" : "a string"} of at most ${max.toLocaleString("en")} characters.`,
    );
  }
  return value;
}

/** Checks a dependency list against the tasks and refuses a cycle through `id`, naming it. */
function checkDependencies(id: string, dependsOn: unknown, tasks: readonly Task[]): string[] {
  if (!Array.isArray(dependsOn) || !dependsOn.every((entry) => typeof entry === "string"))
    throw invalid("dependsOn must be a list of task ids.");
  const unique = [...new Set(dependsOn as string[])];
  if (unique.length > taskLimits.dependsOn) throw invalid(`A task depends on at most ${taskLimits.dependsOn} tasks.`);
  const byId = new Map(tasks.map((task) => [task.id, task]));
  for (const dependency of unique) {
    if (dependency === id) throw invalid(`${id} cannot depend on itself.`);
    if (!byId.has(dependency)) throw invalid(`${id} depends on ${dependency}, which does not exist.`);
  }
  // A path from a dependency back to `id` closes a cycle.
  const graph = new Map(tasks.map((task) => [task.id, task.id === id ? unique : task.dependsOn]));
  graph.set(id, unique);
  const visit = (node: string, path: string[]): string[] | undefined => {
    if (node === id && path.length > 0) return path;
    if (path.includes(node)) return undefined;
    for (const next of graph.get(node) ?? []) {
      const found = visit(next, [...path, node]);
      if (found) return found;
    }
    return undefined;
  };
  const cycle = visit(id, []);
  if (cycle) throw invalid(`That would make a cycle: ${[...cycle, id].join(" -> ")}.`);
  return unique;
}

function resultOf(value: unknown): string {
  return JSON.stringify(value);
}

/** Runs a change of a Session's list: load, change, save at the loaded revision; a refusal writes nothing. */
async function change(
  store: TaskPort,
  ctx: ToolContext,
  apply: (list: TaskList, now: string) => { readonly tasks: readonly Task[]; readonly result: unknown },
): Promise<string> {
  const list = await store.load(ctx.sessionId, { signal: ctx.signal });
  const { tasks, result } = apply(list, new Date().toISOString());
  await store.save(ctx.sessionId, tasks, { expectedRevision: list.revision, signal: ctx.signal });
  return resultOf(result);
}

/** A refusal (`task_invalid`) or a store failure (corrupt, locked, conflict) as the tool's error result, with its code. */
async function storeErrors(
  work: () => Promise<string>,
): Promise<string | { content: { type: "text"; text: string }[]; isError: true }> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ToolInputError) return { content: [{ type: "text", text: error.resultText }], isError: true };
    if (error instanceof CastellanError)
      return { content: [{ type: "text", text: `${error.code}: ${error.message}` }], isError: true };
    throw error;
  }
}

const idSchema = { type: "string", description: "A task id, like task-3." };
const dependsOnSchema = { type: "array", items: { type: "string" }, description: "Ids of tasks this one waits for." };

/**
 * The task tools of a coding agent: `create_task`, `read_task` and `list_tasks` (read-only),
 * `revise_task` and `update_task_progress`, over one `TaskPort` (default: a file task store at
 * `.castellan/tasks` under `process.cwd()` when this is called; nothing is written until the
 * first change). Each Session has its own list (by `ctx.sessionId`; reopening restores it).
 * A refusal is an error result `task_invalid` and writes nothing.
 */
export function createTaskTools(store?: TaskPort): readonly Tool[] {
  const port = store ?? createFileTaskStore({ directory: join(process.cwd(), ".castellan", "tasks") });
  const find = (list: TaskList, id: unknown): Task => {
    const task = list.tasks.find((entry) => entry.id === id);
    if (!task) throw invalid(`There is no task ${JSON.stringify(id)}.`);
    return task;
  };
  return Object.freeze([
    defineTool<{ title: string; description?: string; dependsOn?: string[] }>({
      name: "create_task",
      description: "Record a new task (pending, progress 0); it starts nothing. Returns the task.",
      inputSchema: {
        type: "object",
        properties: { title: { type: "string" }, description: { type: "string" }, dependsOn: dependsOnSchema },
        required: ["title"],
        additionalProperties: false,
      },
      execute: (input, ctx) =>
        storeErrors(() =>
          change(port, ctx, (list, now) => {
            if (list.tasks.length >= taskLimits.tasks)
              throw invalid(`A Session holds at most ${taskLimits.tasks} tasks.`);
            const title = checkText(input.title, "title", taskLimits.title, true) as string;
            const description = checkText(input.description, "description", taskLimits.description, false) ?? "";
            const next = list.tasks.reduce((max, task) => Math.max(max, Number(task.id.slice(5)) || 0), 0) + 1;
            const id = `task-${next}`;
            const dependsOn = checkDependencies(id, input.dependsOn ?? [], list.tasks);
            const task: Task = {
              id,
              title,
              description,
              status: "pending",
              progress: 0,
              dependsOn,
              createdAt: now,
              updatedAt: now,
            };
            return { tasks: [...list.tasks, task], result: task };
          }),
        ),
    }),
    defineTool<{ id: string }>({
      name: "read_task",
      description: "Read one task, with its description.",
      inputSchema: { type: "object", properties: { id: idSchema }, required: ["id"], additionalProperties: false },
      readOnly: true,
      execute: (input, ctx) =>
        storeErrors(async () => resultOf(find(await port.load(ctx.sessionId, { signal: ctx.signal }), input.id))),
    }),
    defineTool<{ status?: TaskStatus }>({
      name: "list_tasks",
      description:
        "List the tasks in creation order as { id, title, status, progress, dependsOn, blockedBy } (blockedBy: unfinished dependencies); read_task gives a description.",
      inputSchema: {
        type: "object",
        properties: { status: { type: "string", enum: ["pending", "in_progress", "completed"] } },
        additionalProperties: false,
      },
      readOnly: true,
      execute: (input, ctx) =>
        storeErrors(async () => {
          const list = await port.load(ctx.sessionId, { signal: ctx.signal });
          const status = new Map(list.tasks.map((task) => [task.id, task.status]));
          return resultOf(
            list.tasks
              .filter((task) => input.status === undefined || task.status === input.status)
              .map(({ id, title, status: state, progress, dependsOn }) => ({
                id,
                title,
                status: state,
                progress,
                dependsOn,
                blockedBy: dependsOn.filter((dependency) => status.get(dependency) !== "completed"),
              })),
          );
        }),
    }),
    defineTool<{ id: string; title?: string; description?: string; dependsOn?: string[] }>({
      name: "revise_task",
      description: "Change a task's title, description or dependencies; its id, status and progress stay.",
      inputSchema: {
        type: "object",
        properties: {
          id: idSchema,
          title: { type: "string" },
          description: { type: "string" },
          dependsOn: dependsOnSchema,
        },
        required: ["id"],
        additionalProperties: false,
      },
      execute: (input, ctx) =>
        storeErrors(() =>
          change(port, ctx, (list, now) => {
            const task = find(list, input.id);
            const revised: Task = {
              ...task,
              title: checkText(input.title, "title", taskLimits.title, false) ?? task.title,
              description:
                checkText(input.description, "description", taskLimits.description, false) ?? task.description,
              dependsOn:
                input.dependsOn === undefined
                  ? task.dependsOn
                  : checkDependencies(task.id, input.dependsOn, list.tasks),
              updatedAt: now,
            };
            return { tasks: list.tasks.map((entry) => (entry.id === task.id ? revised : entry)), result: revised };
          }),
        ),
    }),
    defineTool<{ id: string; status: TaskStatus; progress?: number }>({
      name: "update_task_progress",
      description:
        "Set a task's status: pending (progress 0), in_progress (progress 0-100, required) or completed (100).",
      inputSchema: {
        type: "object",
        properties: {
          id: idSchema,
          status: { type: "string", enum: ["pending", "in_progress", "completed"] },
          progress: { type: "integer" },
        },
        required: ["id", "status"],
        additionalProperties: false,
      } as JsonObject,
      execute: (input, ctx) =>
        storeErrors(() =>
          change(port, ctx, (list, now) => {
            const task = find(list, input.id);
            let progress: number;
            if (input.status === "pending") {
              if (input.progress !== undefined && input.progress !== 0) throw invalid("A pending task has progress 0.");
              progress = 0;
            } else if (input.status === "completed") {
              if (input.progress !== undefined && input.progress !== 100)
                throw invalid("A completed task has progress 100.");
              progress = 100;
            } else {
              if (
                !Number.isInteger(input.progress) ||
                (input.progress as number) < 0 ||
                (input.progress as number) > 100
              ) {
                throw invalid("in_progress needs progress, an integer from 0 to 100.");
              }
              progress = input.progress as number;
            }
            const updated: Task = { ...task, status: input.status, progress, updatedAt: now };
            return { tasks: list.tasks.map((entry) => (entry.id === task.id ? updated : entry)), result: updated };
          }),
        ),
    }),
  ]);
}
