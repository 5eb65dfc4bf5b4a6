// The task tools over the file task store: every progress rule, dependencies and cycles, the
// bounds, revisions keeping progress, the list restored by Session id in another OS process,
// corruption reported and left unchanged, one writer per Session, nothing written at
// declaration, and writes asked about under ask-on-write.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { defineAgent, type Tool, type ToolResult } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  createFileTaskStore,
  createNodeRunner,
  createTaskTools,
  type TaskStore,
  type ToolApprovalRequest,
} from "../src/index.js";
import { startFixture } from "./fixtures/child.ts";
import { approvalPlugin, drain, tempDirPerTest, toolContext } from "./support/index.ts";

const temp = tempDirPerTest("castellan-tasks-");
const stores: TaskStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

function setup(sessionId = "s1") {
  const store = createFileTaskStore({ directory: join(temp.path, "tasks") });
  stores.push(store);
  const tools = new Map(createTaskTools(store).map((tool) => [tool.name, tool] as [string, Tool]));
  const use = async (name: string, input: object) => {
    const output = (await tools.get(name)?.execute(input, toolContext({ sessionId, toolName: name }))) as
      | string
      | ToolResult;
    if (typeof output === "string") return { isError: false, text: output, json: () => JSON.parse(output) };
    const text = output.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    return { isError: output.isError, text, json: () => JSON.parse(text) };
  };
  return { store, use };
}

describe("the task tools", () => {
  it("create, read and list tasks in creation order, with blockedBy from unfinished dependencies", async () => {
    const { use, store } = setup();
    expect((await use("create_task", { title: "Write the parser" })).json()).toMatchObject({
      id: "task-1",
      status: "pending",
      progress: 0,
      description: "",
    });
    await use("create_task", { title: "Test it", description: "All the cases", dependsOn: ["task-1"] });
    expect((await use("read_task", { id: "task-2" })).json()).toMatchObject({
      description: "All the cases",
      dependsOn: ["task-1"],
    });
    const listed = (await use("list_tasks", {})).json();
    expect(listed).toEqual([
      { id: "task-1", title: "Write the parser", status: "pending", progress: 0, dependsOn: [], blockedBy: [] },
      { id: "task-2", title: "Test it", status: "pending", progress: 0, dependsOn: ["task-1"], blockedBy: ["task-1"] },
    ]);
    expect(JSON.stringify(listed)).not.toContain("All the cases");
    await use("update_task_progress", { id: "task-1", status: "completed" });
    expect((await use("list_tasks", { status: "pending" })).json()).toEqual([
      expect.objectContaining({ id: "task-2", blockedBy: [] }),
    ]);
    expect((await store.load("s1")).revision).toBe(3);
  });

  it("enforces every progress rule, refusing with task_invalid and writing nothing", async () => {
    const { use, store } = setup();
    await use("create_task", { title: "t" });
    const refused = [
      { status: "pending", progress: 5 },
      { status: "completed", progress: 50 },
      { status: "in_progress" },
      { status: "in_progress", progress: 101 },
      { status: "in_progress", progress: 2.5 },
    ];
    for (const input of refused) {
      const result = await use("update_task_progress", { id: "task-1", ...input });
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^task_invalid: .*Nothing was written\.$/);
    }
    expect((await store.load("s1")).revision).toBe(1);
    expect(
      (await use("update_task_progress", { id: "task-1", status: "in_progress", progress: 40 })).json(),
    ).toMatchObject({ progress: 40 });
    expect((await use("update_task_progress", { id: "task-1", status: "completed" })).json()).toMatchObject({
      progress: 100,
    });
    expect((await use("update_task_progress", { id: "task-1", status: "pending", progress: 0 })).json()).toMatchObject({
      progress: 0,
    });
  });

  it("refuses a missing dependency and a cycle (naming it); a revision keeps id, status and progress", async () => {
    const { use } = setup();
    expect((await use("create_task", { title: "a", dependsOn: ["task-9"] })).text).toMatch(
      /task-9, which does not exist/,
    );
    await use("create_task", { title: "one" });
    await use("create_task", { title: "two", dependsOn: ["task-1"] });
    await use("create_task", { title: "three", dependsOn: ["task-2"] });
    const cycle = await use("revise_task", { id: "task-1", dependsOn: ["task-3"] });
    expect(cycle.text).toContain("task-1 -> task-3 -> task-2 -> task-1");
    await use("update_task_progress", { id: "task-2", status: "in_progress", progress: 30 });
    const revised = (await use("revise_task", { id: "task-2", title: "two, renamed" })).json();
    expect(revised).toMatchObject({ id: "task-2", title: "two, renamed", status: "in_progress", progress: 30 });
  });

  it("holds the bounds: title, description, dependencies and 200 tasks a Session", async () => {
    const { use } = setup();
    expect((await use("create_task", { title: "x".repeat(201) })).isError).toBe(true);
    expect((await use("create_task", { title: "t", description: "d".repeat(4_001) })).isError).toBe(true);
    for (let index = 0; index < 200; index++)
      expect((await use("create_task", { title: `t${index}` })).isError).toBe(false);
    expect((await use("create_task", { title: "one too many" })).text).toMatch(/at most 200 tasks/);
  }, 60_000);

  it("keeps lists per Session and restores one by its id in another OS process", async () => {
    const directory = join(temp.path, "shared");
    const child = await startFixture("tasks-child.ts", [], { TASK_DIRECTORY: directory, SESSION_ID: "restored" })
      .exited;
    expect(child.code).toBe(0);
    const store = createFileTaskStore({ directory });
    stores.push(store);
    expect((await store.load("restored")).tasks).toEqual([
      expect.objectContaining({ id: "task-1", title: "Written by the child" }),
    ]);
    expect((await store.load("someone-else")).tasks).toEqual([]);
  });

  it("reports a corrupt file with its cause and leaves it unchanged; a second writer is locked out", async () => {
    const { use, store } = setup();
    const file = join(store.directory, "s1.json");
    await mkdir(store.directory, { recursive: true });
    await writeFile(file, "{ not json");
    const hash = async () =>
      createHash("sha256")
        .update(await readFile(file))
        .digest("hex");
    const before = await hash();
    const result = await use("create_task", { title: "t" });
    expect(result.text).toMatch(/^task_store_corrupt: /);
    await expect(store.load("s1")).rejects.toMatchObject({
      code: "task_store_corrupt",
      cause: expect.any(SyntaxError),
    });
    expect(await hash()).toBe(before);
    const second = createFileTaskStore({ directory: store.directory });
    stores.push(second);
    await expect(second.load("s1")).rejects.toMatchObject({ code: "task_store_locked" });
  });

  it("writes nothing when declared; the first write creates .castellan/tasks under the working directory", async () => {
    const previous = process.cwd();
    process.chdir(temp.path);
    try {
      const tools = createTaskTools();
      expect(existsSync(join(temp.path, ".castellan"))).toBe(false);
      const create = tools.find((tool) => tool.name === "create_task") as Tool;
      await create.execute({ title: "first" }, toolContext({ sessionId: "cwd", toolName: "create_task" }));
      expect(existsSync(join(temp.path, ".castellan", "tasks", "cwd.json"))).toBe(true);
    } finally {
      process.chdir(previous);
    }
  });

  it("asks before a write under ask-on-write, and reads without asking", async () => {
    const store = createFileTaskStore({ directory: join(temp.path, "asked") });
    stores.push(store);
    const asked: ToolApprovalRequest[] = [];
    const agent = defineAgent("test.tasks", {
      model: scriptedModel([
        { toolCalls: [{ name: "create_task", input: { title: "asked" } }] },
        { toolCalls: [{ name: "list_tasks", input: {} }] },
        { text: "done" },
      ]),
      tools: [...createTaskTools(store)],
    });
    const runner = await createNodeRunner({
      agent,
      permissions: "ask-on-write",
      plugins: [
        approvalPlugin(async (request) => {
          asked.push(request);
          return { decision: "allow" };
        }),
      ],
    });
    try {
      const session = await runner.createSession({ id: "asked" });
      await drain(session.run("go"));
      await session.close();
    } finally {
      await runner.close();
    }
    expect(asked.map((request) => request.toolName)).toEqual(["create_task"]);
  });
});
