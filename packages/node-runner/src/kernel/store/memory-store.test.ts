import { describe, expect, it } from "vitest";
import { createMemorySessionStore } from "./memory-store.js";
import type { SessionRecord } from "./records.js";

const opening: SessionRecord = {
  kind: "session-open",
  formatVersion: 1,
  sessionId: "s1",
  agentId: "helper",
  params: { depth: 1 },
};

const everyKind: readonly SessionRecord[] = [
  opening,
  { kind: "run-start", runId: "run-1", input: [{ type: "text", text: "hi" }] },
  {
    kind: "assistant-message",
    runId: "run-1",
    turn: 1,
    message: { role: "assistant", content: [], toolCalls: [{ id: "c1", name: "read", input: {} }] },
    stopReason: "tool-calls",
    model: "test:model",
    usage: { inputTokens: 1, outputTokens: 2 },
  },
  { kind: "tool-start", runId: "run-1", turn: 1, toolCall: { id: "c1", name: "read", input: {} } },
  {
    kind: "tool-end",
    runId: "run-1",
    turn: 1,
    toolCallId: "c1",
    toolName: "read",
    input: {},
    result: { content: [{ type: "text", text: "ok" }], isError: false },
  },
  { kind: "run-end", runId: "run-1", status: "failed", error: { code: "model_failed", message: "no" } },
];

describe("createMemorySessionStore", () => {
  it("keeps every record kind across close and reopen within the store", async () => {
    const store = createMemorySessionStore();
    const log = await store.open("s1");
    expect(log.sessionId).toBe("s1");
    expect(log.records).toEqual([]);
    await log.append(everyKind.slice(0, 2));
    await log.append(everyKind.slice(2));
    await log.close();
    const reopened = await store.open("s1");
    expect(reopened.records).toEqual(everyKind);
    await reopened.close();

    const other = await createMemorySessionStore().open("s1");
    expect(other.records).toEqual([]);
  });

  it("copies records in and out, so callers cannot change history", async () => {
    const store = createMemorySessionStore();
    const log = await store.open("s1");
    const params: Record<string, string> = { mode: "first" };
    await log.append([{ ...opening, params }]);
    params.mode = "changed";
    await log.close();

    const first = await store.open("s1");
    expect(first.records[0]).toMatchObject({ params: { mode: "first" } });
    (first.records[0] as { params: Record<string, string> }).params.mode = "mutated";
    await first.close();
    const second = await store.open("s1");
    expect(second.records[0]).toMatchObject({ params: { mode: "first" } });
    await second.close();
  });

  it("allows one writer per Session at a time", async () => {
    const store = createMemorySessionStore();
    const log = await store.open("s1");
    await expect(store.open("s1")).rejects.toMatchObject({ code: "session_locked" });
    const other = await store.open("s2");
    await other.close();
    await log.close();
    await log.close();
    const again = await store.open("s1");
    // The old writer's close must not release the new writer's hold.
    await log.close();
    await expect(store.open("s1")).rejects.toMatchObject({ code: "session_locked" });
    await again.close();
  });

  it("keeps concurrent appends in call order", async () => {
    const store = createMemorySessionStore();
    const log = await store.open("s1");
    const runIds = Array.from({ length: 10 }, (_, index) => `r${index}`);
    await Promise.all([
      log.append([opening]),
      ...runIds.map((runId) => log.append([{ kind: "run-start", runId, input: [] }])),
    ]);
    await log.close();
    const reopened = await store.open("s1");
    expect(reopened.records.slice(1).map((record) => (record.kind === "run-start" ? record.runId : ""))).toEqual(
      runIds,
    );
    await reopened.close();
  });

  it("rejects appends after close and records that would make the log invalid", async () => {
    const store = createMemorySessionStore();
    const log = await store.open("s1");
    await expect(log.append(everyKind.slice(1, 2))).rejects.toMatchObject({ code: "session_log_corrupt", line: 1 });
    await expect(log.append([{ ...opening, formatVersion: 2 }])).rejects.toMatchObject({
      code: "session_log_unsupported",
    });
    await log.append([opening]);
    await expect(log.append([opening])).rejects.toMatchObject({ code: "session_log_corrupt", line: 2 });
    const unknown = { kind: "state-commit" } as unknown as SessionRecord;
    await expect(log.append([unknown])).rejects.toMatchObject({ code: "session_log_corrupt" });
    await log.close();
    await expect(log.append(everyKind.slice(1, 2))).rejects.toMatchObject({ code: "session_log_write_failed" });
    const reopened = await store.open("s1");
    expect(reopened.records).toEqual([opening]);
  });

  it("rejects an open whose signal is already aborted", async () => {
    const store = createMemorySessionStore();
    await expect(store.open("s1", { signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: "aborted",
      name: "AbortError",
    });
    const log = await store.open("s1");
    await log.close();
  });
});
