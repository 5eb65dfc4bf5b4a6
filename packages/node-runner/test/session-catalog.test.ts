// A store's catalog lists and reads saved Sessions without a lock and without writing: the
// file store from each log's first line and last 64 KiB, a read stopping at a torn or invalid
// tail and leaving the file as it was; the memory store from what it holds. foldSessionUsage
// over what a catalog read answers what the open Session's usage() answers.
import { type ChildProcess, spawn } from "node:child_process";
import { readFile, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { defineAgent, defineTool } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  catalogTailBytes,
  createFileSessionStore,
  createMemorySessionStore,
  foldSessionUsage,
  isSessionCatalog,
  openSession,
  type SessionStore,
} from "../src/index.js";
import { storeRecords, tempDirPerTest } from "./support/index.ts";

const temp = tempDirPerTest("castellan-catalog-");

/** Saves one Session `id` of agent `agentId` with one Run of `input` in `store`. */
async function saveSession(store: SessionStore, id: string, input: string, agentId = "catalog.agent") {
  const model = scriptedModel([
    { text: `answer to ${input}`, usage: { inputTokens: 10, outputTokens: 3, costUsd: 0.01 } },
  ]);
  const session = await openSession({ agent: defineAgent(agentId, { model }), id, store, params: { input } });
  await session.run(input).result;
  const usage = session.usage();
  await session.close();
  return usage;
}

const logPath = (id: string) => join(temp.path, `${encodeURIComponent(id)}.jsonl`);

describe("the file store's catalog", () => {
  it("lists every Session newest first, with its agent, params and times, and reads its records", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    expect(isSessionCatalog(store)).toBe(true);
    await saveSession(store, "older", "one");
    await new Promise((resolve) => setTimeout(resolve, 5));
    await saveSession(store, "newer/1", "two", "other.agent");
    const listed = await store.list();
    expect(listed.map((summary) => summary.sessionId)).toEqual(["newer/1", "older"]);
    const [newer] = listed;
    expect(newer).toMatchObject({ agentId: "other.agent", params: { input: "two" }, locked: false });
    expect(Date.parse(newer?.createdAt ?? "")).toBeLessThanOrEqual(Date.parse(newer?.updatedAt ?? ""));
    expect(await store.read("newer/1")).toEqual(await storeRecords(store, "newer/1"));
    expect(await store.read("never")).toEqual([]);
  });

  it("says locked while a writer holds the Session, and takes no lock itself", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    const session = await openSession({
      agent: defineAgent("a", { model: scriptedModel([{ text: "hi" }]) }),
      id: "held",
      store,
    });
    await session.run("hi").result;
    expect((await store.list()).map((summary) => [summary.sessionId, summary.locked])).toEqual([["held", true]]);
    expect((await store.read("held")).length).toBeGreaterThan(2);
    await session.close();
    expect((await store.list())[0]?.locked).toBe(false);
  });

  describe("with a lock file of another process", () => {
    let child: ChildProcess | undefined;
    afterEach(() => {
      child?.kill("SIGKILL");
      child = undefined;
    });

    it("is locked while that process lives, and not once it is gone", async () => {
      const store = createFileSessionStore({ directory: temp.path });
      await saveSession(store, "other", "x");
      child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
      const pid = child.pid as number;
      const lock = JSON.stringify({
        pid,
        host: hostname(),
        at: new Date().toISOString(),
        started: new Date().toISOString(),
      });
      await writeFile(join(temp.path, "other.lock"), lock);
      expect((await store.list())[0]?.locked).toBe(true);
      const exited = new Promise((resolve) => child?.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
      child = undefined;
      expect((await store.list())[0]?.locked).toBe(false);
      // Listing judged the lock stale but left it where it was.
      expect(await readFile(join(temp.path, "other.lock"), "utf8")).toBe(lock);
    });
  });

  it("reads up to a torn or invalid line and leaves the file unchanged", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    await saveSession(store, "torn", "t");
    const whole = await store.read("torn");
    await writeFile(logPath("torn"), `${await readFile(logPath("torn"), "utf8")}{"seq":99,"at":"x","rec`);
    const torn = await readFile(logPath("torn"));
    expect(await store.read("torn")).toEqual(whole);
    expect(await readFile(logPath("torn"))).toEqual(torn);

    const lines = torn.toString("utf8").split("\n");
    lines[2] = lines[2]?.replace('"crc":"', '"crc":"0') ?? "";
    await writeFile(logPath("torn"), lines.join("\n"));
    expect(await store.read("torn")).toEqual(whole.slice(0, 2));
    expect((await stat(logPath("torn"))).size).toBe(Buffer.byteLength(lines.join("\n")));
  });

  it("lists from the first line and the tail alone, past a large middle", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    const big = "b".repeat(3 * catalogTailBytes);
    const tool = defineTool({ name: "big", description: "Big", readOnly: true, execute: () => big });
    const model = scriptedModel([{ toolCalls: [{ name: "big", input: {} }] }, { text: "done" }]);
    const session = await openSession({ agent: defineAgent("large", { model, tools: [tool] }), id: "large", store });
    await session.run("go").result;
    await session.close();
    const [summary] = await store.list();
    const records = await store.read("large");
    expect(records.length).toBeGreaterThan(4);
    // Breaking a line in the middle ends a read there, while the listing, which never reads it, is unchanged.
    const text = await readFile(logPath("large"), "utf8");
    const at = text.indexOf(big.slice(0, 100));
    await writeFile(logPath("large"), `${text.slice(0, at)}c${text.slice(at + 1)}`);
    expect(await store.list()).toEqual([summary]);
    expect((await store.read("large")).length).toBeLessThan(records.length);
  });

  it("leaves out a log whose first line is no session-open of its id, and a name it would not write", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    await saveSession(store, "good", "g");
    const first = (await readFile(logPath("good"), "utf8")).split("\n")[0];
    await writeFile(logPath("copied"), `${first}\n`);
    await writeFile(join(temp.path, "garbage.jsonl"), "not json\n");
    await writeFile(join(temp.path, "%67ood.jsonl"), `${first}\n`);
    await writeFile(join(temp.path, "empty.jsonl"), "");
    expect((await store.list()).map((summary) => summary.sessionId)).toEqual(["good"]);
    expect(await createFileSessionStore({ directory: join(temp.path, "missing") }).list()).toEqual([]);
  });

  it("gives records whose usage fold is the open Session's usage()", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    const usage = await saveSession(store, "usage", "u");
    expect(usage.total.calls).toBe(1);
    expect(foldSessionUsage(await store.read("usage"))).toEqual(usage);
  });

  it("refuses an aborted signal", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    await expect(store.list({ signal: AbortSignal.abort() })).rejects.toMatchObject({ code: "aborted" });
    await expect(store.read("x", { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: "aborted" });
  });
});

describe("the memory store's catalog", () => {
  it("lists and reads what it holds, locked while open", async () => {
    const store = createMemorySessionStore();
    expect(isSessionCatalog(store)).toBe(true);
    const usage = await saveSession(store, "m1", "one");
    const session = await openSession({
      agent: defineAgent("catalog.agent", { model: scriptedModel([]) }),
      id: "m1",
      store,
    });
    const [summary] = await store.list();
    expect(summary).toMatchObject({
      sessionId: "m1",
      agentId: "catalog.agent",
      params: { input: "one" },
      locked: true,
    });
    expect(foldSessionUsage(await store.read("m1"))).toEqual(usage);
    await session.close();
    expect((await store.list())[0]?.locked).toBe(false);
    expect(await store.read("none")).toEqual([]);
  });

  it("is not what a store without list and read is", () => {
    expect(isSessionCatalog({ open: () => Promise.reject(new Error("no")) })).toBe(false);
  });
});
