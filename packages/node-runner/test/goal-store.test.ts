// The file Goal store: opening (the same objective again, a conflicting one), edits, pause,
// resume, delete, settlements and every obsolete one, a Goal opened by another OS process,
// corruption left unchanged, and one writer per Session.
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFileGoalStore, type Goal, type GoalStore } from "../src/index.js";
import { startFixture } from "./fixtures/child.ts";
import { tempDirPerTest } from "./support/index.ts";

const temp = tempDirPerTest("castellan-goals-");
const stores: GoalStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});
const storeIn = (directory = join(temp.path, "goals")) => {
  const store = createFileGoalStore({ directory });
  stores.push(store);
  return store;
};

describe("the file Goal store", () => {
  it("opens a Goal once per objective, refuses a different unfinished one, and edits, pauses, resumes and deletes it", async () => {
    const store = storeIn();
    expect(await store.read("s1")).toBeNull();
    const opened = (await store.control({ sessionId: "s1", action: "open", objective: "Fix the build" })) as Goal;
    expect(opened).toMatchObject({ sessionId: "s1", objective: "Fix the build", status: "active", revision: 1 });
    expect(await store.control({ sessionId: "s1", action: "open", objective: "Fix the build" })).toEqual(opened);
    await expect(store.control({ sessionId: "s1", action: "open", objective: "Something else" })).rejects.toMatchObject(
      { code: "goal_conflict" },
    );
    const edited = (await store.control({
      sessionId: "s1",
      action: "edit",
      objective: "Fix the build and the docs",
    })) as Goal;
    expect(edited).toMatchObject({ id: opened.id, revision: 2, objective: "Fix the build and the docs" });
    expect(await store.control({ sessionId: "s1", action: "pause" })).toMatchObject({ status: "paused", revision: 3 });
    expect(await store.control({ sessionId: "s1", action: "resume" })).toMatchObject({ status: "active", revision: 4 });
    expect(await store.control({ sessionId: "s1", action: "delete" })).toBeNull();
    expect(await store.read("s1")).toBeNull();
    await expect(store.control({ sessionId: "s1", action: "open", objective: "" })).rejects.toMatchObject({
      code: "goal_invalid",
    });
  });

  it("settles only the active Goal of that id and objective; paused, edited, deleted and replaced ones are obsolete", async () => {
    const store = storeIn();
    const goal = (await store.control({ sessionId: "s2", action: "open", objective: "Write the guide" })) as Goal;
    const settle = (over: Partial<{ goalId: string; objective: string }> = {}) =>
      store.settle({
        sessionId: "s2",
        goalId: goal.id,
        objective: goal.objective,
        status: "complete",
        summary: "Done.",
        ...over,
      });
    await store.control({ sessionId: "s2", action: "pause" });
    await expect(settle()).rejects.toMatchObject({
      code: "goal_settlement_obsolete",
      current: expect.objectContaining({ status: "paused" }),
    });
    await store.control({ sessionId: "s2", action: "resume" });
    await store.control({ sessionId: "s2", action: "edit", objective: "Write the guide, with examples" });
    await expect(settle()).rejects.toMatchObject({ code: "goal_settlement_obsolete" });
    const settled = await settle({ objective: "Write the guide, with examples" });
    expect(settled).toMatchObject({ status: "complete", summary: "Done." });
    const replacement = (await store.control({ sessionId: "s2", action: "open", objective: "Next thing" })) as Goal;
    expect(replacement.id).not.toBe(goal.id);
    await expect(settle({ objective: "Next thing" })).rejects.toMatchObject({
      code: "goal_settlement_obsolete",
      current: expect.objectContaining({ id: replacement.id }),
    });
    await store.control({ sessionId: "s2", action: "delete" });
    await expect(settle({ goalId: replacement.id, objective: "Next thing" })).rejects.toMatchObject({
      code: "goal_settlement_obsolete",
      current: null,
    });
    await expect(
      store.settle({ sessionId: "s2", goalId: "x", objective: "y", status: "blocked", summary: "" }),
    ).rejects.toMatchObject({ code: "goal_invalid" });
  });

  it("reads a Goal another OS process opened, keeps Sessions apart, leaves a corrupt file unchanged, and locks out a second writer", async () => {
    const directory = join(temp.path, "shared");
    const child = await startFixture("goal-child.ts", [], { GOAL_DIRECTORY: directory, SESSION_ID: "shared" }).exited;
    expect(child.code).toBe(0);
    const store = storeIn(directory);
    expect(await store.read("shared")).toEqual((child.lines[0] as { goal: Goal }).goal);
    expect(await store.read("other")).toBeNull();
    const second = storeIn(directory);
    await expect(second.read("shared")).rejects.toMatchObject({ code: "goal_store_locked" });

    const corrupt = storeIn(join(temp.path, "corrupt"));
    await mkdir(corrupt.directory, { recursive: true });
    const file = join(corrupt.directory, "bad.json");
    await writeFile(file, JSON.stringify({ formatVersion: 9, goal: null }));
    const hash = async () =>
      createHash("sha256")
        .update(await readFile(file))
        .digest("hex");
    const before = await hash();
    await expect(corrupt.read("bad")).rejects.toMatchObject({ code: "goal_store_corrupt" });
    await expect(corrupt.control({ sessionId: "bad", action: "open", objective: "x" })).rejects.toMatchObject({
      code: "goal_store_corrupt",
    });
    expect(await hash()).toBe(before);
  });
});
