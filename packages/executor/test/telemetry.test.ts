// Drain-on-read telemetry: reads partition what was published (each entry reaches one read),
// seq runs per job across reopenings, what no read took survives a reopen (and a torn last
// line), what was drained does not come back, spans past 10,000 drop the oldest and are
// counted, the complete call list is kept, and the file is private.
import { appendFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JobTelemetry, maxUndrainedSpans } from "../src/index.js";
import { tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-telemetry-");

const call = (turn: number) => ({
  pass: "initial",
  model: "m",
  turn,
  inputTokens: 10,
  outputTokens: 2,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  durationMs: 5,
  outcome: "completed" as const,
});
const span = (name: string) => ({
  kind: "tool" as const,
  name,
  pass: "initial",
  startedAt: "2026-12-01T00:00:00.000Z",
  durationMs: 1,
  ok: true,
});

describe("job telemetry", () => {
  it("hands each entry to exactly one read, in seq order", async () => {
    const telemetry = await JobTelemetry.open(join(temp.path, "telemetry.jsonl"));
    telemetry.publishCall(call(1));
    telemetry.publishSpan(span("read_workspace_file"));
    const first = telemetry.drain();
    telemetry.publishCall(call(2));
    telemetry.publishFollowUp({ title: "Add a test for the empty cart", pass: "initial" });
    const second = telemetry.drain();
    expect(first.callMetrics.map((entry) => entry.seq)).toEqual([1]);
    expect(first.spans.map((entry) => entry.seq)).toEqual([1]);
    expect(second.callMetrics.map((entry) => entry.seq)).toEqual([2]);
    expect(second.followUps).toEqual([{ seq: 1, title: "Add a test for the empty cart", pass: "initial" }]);
    expect(telemetry.drain()).toEqual({ spans: [], followUps: [], callMetrics: [], droppedSpans: 0 });
    expect(telemetry.allCalls().map((entry) => entry.seq)).toEqual([1, 2]);
    await telemetry.flush();
    expect((await stat(join(temp.path, "telemetry.jsonl"))).mode & 0o777).toBe(0o600);
  });

  it("restores what no read took after a reopen, never what was drained, and keeps seq going", async () => {
    const file = join(temp.path, "telemetry.jsonl");
    const first = await JobTelemetry.open(file);
    first.publishCall(call(1));
    first.publishCall(call(2));
    first.drain();
    first.publishCall(call(3));
    first.publishSpan(span("exec_command"));
    await first.flush();
    // A killed process can leave half a line.
    await appendFile(file, '{"type":"entry","chan');
    const reopened = await JobTelemetry.open(file);
    const drained = reopened.drain();
    expect(drained.callMetrics.map((entry) => entry.seq)).toEqual([3]);
    expect(drained.spans.map((entry) => entry.name)).toEqual(["exec_command"]);
    reopened.publishCall(call(4));
    expect(reopened.drain().callMetrics.map((entry) => entry.seq)).toEqual([4]);
    expect(reopened.allCalls().map((entry) => entry.seq)).toEqual([1, 2, 3, 4]);
    await reopened.flush();
  });

  it("keeps at most 10,000 spans undrained, dropping the oldest and counting them", async () => {
    const telemetry = await JobTelemetry.open(join(temp.path, "telemetry.jsonl"));
    for (let index = 0; index < maxUndrainedSpans + 25; index++) telemetry.publishSpan(span(`t${index}`));
    const drained = telemetry.drain();
    expect(drained.spans).toHaveLength(maxUndrainedSpans);
    expect(drained.droppedSpans).toBe(25);
    expect(drained.spans[0]?.name).toBe("t25");
    expect(telemetry.drain().droppedSpans).toBe(0);
    await telemetry.flush();
  });
});
