// Saved formats stay readable: the frozen logs under fixtures/logs/ were written once by the
// file store and are opened here as they are, by Sessions of the same agent, which must find
// what those processes saved and leave every byte of them unchanged. The corpus holds every
// record kind; running its scenario again checks that every field written today appears in
// it, so a new kind or field comes with a new fixture.
//
// To write the scenario's logs somewhere to look at (or to add a fixture), set
// CASTELLAN_KEEP_CORPUS to a new directory; the test writes them there as well.
import { createHash } from "node:crypto";
import { copyFile, cp, mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scriptedModel } from "@castellan/models/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createFileSessionStore, createNodeRunner, goalObservationKey, sessionRecordKinds } from "../src/index.js";
import {
  corpusAgentFor,
  corpusFiles,
  corpusGoal,
  corpusSearch,
  fieldsOf,
  writeCorpus,
} from "./fixtures/logs/scenario.ts";
import { tempDirPerTest } from "./support/index.ts";

const corpus = fileURLToPath(new URL("./fixtures/logs/", import.meta.url));
const temp = tempDirPerTest("castellan-corpus-");
const runners: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.close();
});

const sha256 = async (path: string) =>
  createHash("sha256")
    .update(await readFile(path))
    .digest("hex");

/** Opens one corpus log, copied to a fresh directory under its Session id, with a model answering `steps`. */
async function openCopy(file: (typeof corpusFiles)[number], steps: Parameters<typeof scriptedModel>[0] = []) {
  const directory = join(temp.path, file);
  await mkdir(directory);
  // The file is named for what it holds; the store names a log after its Session.
  const text = await readFile(join(corpus, file), "utf8");
  const id = JSON.parse(text.slice(0, text.indexOf("\n"))).record.sessionId as string;
  const path = join(directory, `${id}.jsonl`);
  await copyFile(join(corpus, file), path);
  const before = await sha256(path);
  const model = scriptedModel(steps);
  const store = createFileSessionStore({ directory });
  const runner = await createNodeRunner({
    agent: corpusAgentFor(file, model),
    permissions: "full-access",
    plugins: [{ name: "corpus.store", apply: (host) => host.registerSessionStore(store) }, corpusSearch],
  });
  runners.push(runner);
  const session = await runner.createSession({ id });
  return { session, model, path, before, directory };
}

describe("the frozen log corpus", () => {
  it("holds every record kind, and each file opens without a change to its bytes", async () => {
    const kinds = new Set<string>();
    for (const file of corpusFiles) {
      for (const kind of fieldsOf(await readFile(join(corpus, file), "utf8")).keys()) kinds.add(kind);
      const { session, path, before, directory } = await openCopy(file);
      expect(session.params).toEqual({ project: "Cedar" });
      await session.close();
      expect(await sha256(path)).toBe(before);
      // The lock is gone and nothing else was left beside the log.
      expect(await readdir(directory)).toEqual([`${session.id}.jsonl`]);
    }
    expect([...kinds].sort()).toEqual([...sessionRecordKinds].sort());
  });

  it("complete.jsonl: the conversation, receipts, state, usage and compactions as saved", async () => {
    const { session, path, before } = await openCopy("complete.jsonl");
    try {
      expect(session.interruptedRun()).toBeUndefined();
      expect(session.pendingApprovals()).toEqual([]);
      const inspection = session.inspect();
      // Two notes were committed (the cut-off call wrote none); the host wrote the phase.
      expect(inspection.state).toEqual({ notes: 2, phase: "review" });
      expect(inspection.stateWrites.map((write) => write.source)).toEqual(["tool", "host", "tool"]);
      const usage = session.usage();
      expect(usage.total).toMatchObject({ calls: 10, cacheReadTokens: 40 });
      expect(usage.entries.filter((entry) => entry.purpose === "compaction")).toHaveLength(2);
      expect(Object.keys(usage.byRun)).toHaveLength(3);
    } finally {
      await session.close();
    }
    expect(await sha256(path)).toBe(before);
  });

  it("complete.jsonl: a new Run continues the saved conversation from its last compaction", async () => {
    const { session, model } = await openCopy("complete.jsonl", [{ text: "continued" }]);
    try {
      expect((await session.run("Go on.").result).text).toBe("continued");
    } finally {
      await session.close();
    }
    const sent = model.requests[0]?.messages ?? [];
    expect(sent[0]?.role).toBe("user");
    expect(JSON.stringify(sent[0])).toContain("Summary of the earlier conversation");
    expect(sent.at(-1)).toEqual({ role: "user", content: [{ type: "text", text: "Go on." }] });
  });

  it("interrupted.jsonl: the stopped Run, its started and unstarted calls, resumable", async () => {
    const { session, model, path, before } = await openCopy("interrupted.jsonl", [{ text: "after the stop" }]);
    try {
      expect(session.interruptedRun()).toMatchObject({
        status: "interrupted",
        turn: 1,
        unsettled: [
          { toolCallId: "i-w", toolName: "wait", state: "started" },
          { toolCallId: "i-n", toolName: "add_note", state: "not-started" },
        ],
      });
      expect(await sha256(path)).toBe(before);
      await session.resume().result;
      expect(session.inspect().state).toEqual({ notes: 1, phase: "start" });
    } finally {
      await session.close();
    }
    const tools = model.requests[0]?.messages.filter((message) => message.role === "tool") ?? [];
    expect(tools.map((message) => [message.toolCallId, message.isError])).toEqual([
      ["i-w", true],
      ["i-n", false],
    ]);
  });

  it("interrupted-then-run.jsonl: the interrupted Run settled by the next one", async () => {
    const { session, path, before } = await openCopy("interrupted-then-run.jsonl");
    try {
      expect(session.interruptedRun()).toBeUndefined();
      expect(session.usage().total.calls).toBe(2);
      expect(session.inspect().state).toEqual({ notes: 0, phase: "start" });
    } finally {
      await session.close();
    }
    expect(await sha256(path)).toBe(before);
  });

  it("pending-approval.jsonl: the request a person was asked, answerable after the stop", async () => {
    const { session, model } = await openCopy("pending-approval.jsonl", [{ text: "published it" }]);
    try {
      expect(session.pendingApprovals()).toMatchObject([{ toolCallId: "p-p", toolName: "publish", readOnly: false }]);
      await session.answerApproval("p-p", { decision: "allow" });
      expect((await session.resume().result).text).toBe("published it");
    } finally {
      await session.close();
    }
    expect(model.requests[0]?.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "p-p", isError: false });
  });

  it("admitted-approval.jsonl: the saved request keeps the admitted input and the admission", async () => {
    const { session, model } = await openCopy("admitted-approval.jsonl", [{ text: "released it" }]);
    try {
      expect(session.pendingApprovals()).toEqual([
        expect.objectContaining({ toolCallId: "a-r", input: { version: "1.2.0" }, admission: { tag: "v1.2.0" } }),
      ]);
      await session.answerApproval("a-r", { decision: "allow" });
      expect((await session.resume().result).text).toBe("released it");
    } finally {
      await session.close();
    }
    const result = model.requests[0]?.messages.at(-1);
    expect(result).toMatchObject({ role: "tool", toolCallId: "a-r", isError: false });
    expect(JSON.stringify(result)).toContain("tagged v1.2.0");
  });

  it("input-ids.jsonl: the saved input identities refuse a duplicate, before anything is saved", async () => {
    const { session, path, before } = await openCopy("input-ids.jsonl", [{ text: "fresh" }]);
    try {
      expect(() => session.run("Again.", { inputId: "host/first" })).toThrow(
        expect.objectContaining({ code: "input_duplicate" }),
      );
      expect(() => session.run("Again.", { inputId: "host/joined" })).toThrow(
        expect.objectContaining({ code: "input_duplicate" }),
      );
      expect(await sha256(path)).toBe(before);
      const run = session.run("New.", { inputId: "host/second" });
      const events = [];
      for await (const event of run) events.push(event);
      expect(events.find((event) => event.kind === "run-start")).toMatchObject({ inputId: "host/second" });
    } finally {
      await session.close();
    }
  });

  it("session-facts.jsonl: the saved hosted searches reach ctx.hostedToolCalls, and the Goal observation its state key", async () => {
    const { session, model, path, before } = await openCopy("session-facts.jsonl", [
      { toolCalls: [{ id: "f-r", name: "read_searches", input: {} }] },
      { text: "read" },
    ]);
    try {
      // Opening searched nothing and asked the model nothing.
      expect(model.requests).toHaveLength(0);
      expect(await sha256(path)).toBe(before);
      expect(session.inspect().state[goalObservationKey]).toMatchObject({ goal: corpusGoal });
      expect(session.usage().total.webSearchRequests).toBe(2);
      await session.run("What did you find?").result;
    } finally {
      await session.close();
    }
    const result = model.requests[1]?.messages.find((message) => message.role === "tool");
    const calls = JSON.parse(result?.role === "tool" ? (result.content[0] as { text: string }).text : "[]");
    expect(calls).toEqual([
      {
        callId: "srvtoolu_c1",
        queries: ["cedar project"],
        sources: [{ url: "https://cedar.example/docs", title: "Cedar docs" }, { url: "https://cedar.example/blog" }],
        ok: true,
        runId: expect.any(String),
        turn: 1,
      },
      { callId: "srvtoolu_c2", queries: ["cedar release"], sources: [], ok: false, runId: expect.any(String), turn: 1 },
    ]);
  });

  it("holds every field, and every status, that the writer produces today", async () => {
    const live = join(temp.path, "live");
    await writeCorpus(live);
    const keep = process.env.CASTELLAN_KEEP_CORPUS;
    if (keep) await cp(live, keep, { recursive: true });
    const fields = async (directory: string) => {
      const all = new Set<string>();
      for (const file of corpusFiles) {
        for (const [kind, names] of fieldsOf(await readFile(join(directory, file), "utf8"))) {
          for (const name of names) all.add(`${kind}:${name}`);
        }
      }
      return all;
    };
    const frozen = await fields(corpus);
    const written = await fields(live);
    const missing = [...written].filter((field) => !frozen.has(field));
    // A field (or status) listed here is written now but no frozen log has it: add a fixture.
    expect(missing).toEqual([]);
    expect(written.size).toBeGreaterThan(60);
  });
});
