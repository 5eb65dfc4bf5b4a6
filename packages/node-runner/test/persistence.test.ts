import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { defineAgent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createFileSessionStore, createNodeRunner, openSession } from "../src/index.js";
import { fileRecords, tempDirPerTest } from "./support/index.ts";

const run = promisify(execFile);
const writer = fileURLToPath(new URL("./fixtures/notes-agent.ts", import.meta.url));
const temp = tempDirPerTest("castellan-persistence-");

async function inChild(input: string, options: { agentId?: string; params?: unknown } = {}) {
  const args = [writer, input, options.agentId ?? "test.notes"];
  if (options.params !== undefined) args.push(JSON.stringify(options.params));
  const { stdout } = await run(process.execPath, args, {
    env: { ...process.env, SESSION_DIRECTORY: temp.path, SESSION_ID: "notes" },
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) as string);
}

async function hashes(): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const name of (await readdir(temp.path)).sort()) {
    result[name] = createHash("sha256")
      .update(await readFile(join(temp.path, name)))
      .digest("hex");
  }
  return result;
}

async function failingChild(input: string, options: { agentId?: string; params?: unknown }): Promise<string> {
  try {
    await inChild(input, options);
  } catch (error) {
    return String((error as { stderr?: string }).stderr);
  }
  throw new Error("the child process was expected to fail");
}

describe("a Session saved by the file store", () => {
  it("continues in a second OS process with its history and params, without replaying anything", async () => {
    const first = await inChild("alpha", { params: { tenant: "acme" } });
    expect(first.text).toBe("seen 3 messages");
    expect(first.executed).toEqual(["alpha"]);

    const second = await inChild("beta");
    expect(second.requestsAtOpen).toBe(0);
    expect(second.executedAtOpen).toBe(0);
    expect(second.params).toEqual({ tenant: "acme" });
    // The first request of the second process carries the whole first conversation.
    expect(second.messages).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(second.executed).toEqual(["beta"]);
    expect(second.text).toBe("seen 7 messages");
  });

  it("refuses another agent's history and leaves the files unchanged", async () => {
    await inChild("alpha", { params: { tenant: "acme" } });
    const before = await hashes();
    const stderr = await failingChild("beta", { agentId: "test.other" });
    expect(stderr).toContain("session_agent_mismatch");
    expect(stderr).toContain('holds the history of agent "test.notes"');
    expect(await hashes()).toEqual(before);
  });

  it("refuses different params and leaves the files unchanged", async () => {
    await inChild("alpha", { params: { tenant: "acme" } });
    const before = await hashes();
    const stderr = await failingChild("beta", { params: { tenant: "other" } });
    expect(stderr).toContain("session_params_mismatch");
    expect(await hashes()).toEqual(before);
    // Equal params are accepted.
    expect((await inChild("gamma", { params: { tenant: "acme" } })).executed).toEqual(["gamma"]);
  });

  it("refuses a log damaged in the middle, naming the line, and changes nothing", async () => {
    await inChild("alpha", { params: { tenant: "acme" } });
    const log = join(temp.path, "notes.jsonl");
    const lines = (await readFile(log, "utf8")).split("\n");
    lines[2] = lines[2]?.replace('"seq":3', '"seq":9') ?? "";
    await writeFile(log, lines.join("\n"));
    const before = await hashes();
    const stderr = await failingChild("beta", {});
    expect(stderr).toContain("session_log_corrupt");
    expect(stderr).toContain("invalid at line 3");
    expect(await hashes()).toEqual(before);
  });

  it("drops a torn trailing record and continues after the last good one", async () => {
    await inChild("alpha", { params: { tenant: "acme" } });
    const log = join(temp.path, "notes.jsonl");
    const intact = await readFile(log, "utf8");
    await writeFile(log, `${intact}{"seq":99,"at":"2026-01-01T00:00:00.000Z","record":{"kind":"run-st`);
    const second = await inChild("beta");
    expect(second.messages).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    const text = await readFile(log, "utf8");
    expect(text.startsWith(intact)).toBe(true);
    expect(text).not.toContain('"seq":99');
    const seqs = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
  });

  it("saves non-empty params before createSession returns, and an empty Session only with its first Run", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    const model = scriptedModel([{ text: "hi" }]);
    const agent = defineAgent("test.params", { model, params: ["tenant"] });
    const runner = await createNodeRunner({
      agent,
      plugins: [{ name: "store", apply: (host) => host.registerSessionStore(store) }],
    });
    const withParams = await runner.createSession({ id: "with", params: { tenant: "acme" } });
    const saved = await readFile(join(temp.path, "with.jsonl"), "utf8");
    expect(JSON.parse(saved.trim()).record).toMatchObject({
      kind: "session-open",
      agentId: "test.params",
      params: { tenant: "acme" },
    });
    await withParams.close();
    await runner.close();

    const plain = defineAgent("test.plain", { model });
    const session = await openSession({ agent: plain, id: "plain", store });
    expect((await readdir(temp.path)).filter((name) => name.startsWith("plain.") && name.endsWith(".jsonl"))).toEqual(
      [],
    );
    await session.run("hello").result;
    const records = (await fileRecords(temp.path, "plain")).map((record) => record.kind);
    expect(records).toEqual(["session-open", "run-start", "assistant-message", "run-end"]);
    await session.close();
  });

  it("refuses a second writer of an open Session", async () => {
    const store = createFileSessionStore({ directory: temp.path });
    const agent = defineAgent("test.plain", { model: scriptedModel([]) });
    const session = await openSession({ agent, id: "busy", store });
    try {
      await expect(
        openSession({ agent, id: "busy", store: createFileSessionStore({ directory: temp.path }) }),
      ).rejects.toMatchObject({
        code: "session_locked",
      });
    } finally {
      await session.close();
    }
    const again = await openSession({ agent, id: "busy", store });
    await again.close();
  });
});
