// The watchdogs under fake timers: the ceiling, inactivity (reset by activity), tool silence
// (busy without a completed call, quiet through a pass's absence and a quiet window), the
// cold-start diagnostic without a kill, 0 disabling, and the failure's evidence.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createJobWatch } from "../src/index.js";

beforeEach(() => {
  vi.useFakeTimers({ now: new Date("2026-12-01T00:00:00.000Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

const limits = { jobMaxDurationMs: 10_000, jobInactivityMs: 1_000, jobToolSilenceMs: 3_000, jobColdStartMs: 500 };

describe("the job watchdogs", () => {
  it("fail the job at the ceiling whatever happens", async () => {
    const watch = createJobWatch({ ...limits, jobToolSilenceMs: 0 });
    for (let step = 0; step < 20; step++) {
      await vi.advanceTimersByTimeAsync(600);
      watch.activity();
    }
    expect(watch.failure?.code).toBe("watchdog-max-duration");
    expect(watch.signal.aborted).toBe(true);
    // The reason is an Error that says why in words, carrying the failure itself.
    expect(watch.signal.reason).toBeInstanceOf(Error);
    expect(watch.signal.reason).toMatchObject({ code: "watchdog-max-duration", failure: watch.failure });
    expect(String(watch.signal.reason)).toContain("ceiling");
  });

  it("fail on inactivity, reset by any activity, with evidence", async () => {
    const watch = createJobWatch(limits);
    await vi.advanceTimersByTimeAsync(900);
    watch.activity();
    watch.toolCompleted("read_workspace_file");
    await vi.advanceTimersByTimeAsync(900);
    expect(watch.failure).toBeUndefined();
    await vi.advanceTimersByTimeAsync(100);
    expect(watch.failure).toMatchObject({
      code: "watchdog-inactivity",
      evidence: { elapsedMs: 1_900, toolCalls: 1, lastToolCalls: ["read_workspace_file"] },
    });
  });

  it("fail on tool silence only in a pass, when output came and no call completed", async () => {
    const chatty = createJobWatch(limits);
    // Outside a pass (a clone, a push) nothing is silence.
    for (let step = 0; step < 8; step++) {
      await vi.advanceTimersByTimeAsync(500);
      chatty.activity();
    }
    expect(chatty.failure).toBeUndefined();
    chatty.passStarted();
    for (let step = 0; step < 7 && !chatty.failure; step++) {
      await vi.advanceTimersByTimeAsync(500);
      chatty.activity();
      chatty.modelOutput();
    }
    expect(chatty.failure?.code).toBe("watchdog-tool-silence");

    const working = createJobWatch(limits);
    working.passStarted();
    for (let step = 0; step < 12; step++) {
      await vi.advanceTimersByTimeAsync(500);
      working.activity();
      working.modelOutput();
      if (step % 4 === 0) working.toolCompleted("exec_command");
    }
    expect(working.failure).toBeUndefined();
    working.dispose();

    const disabled = createJobWatch({ ...limits, jobToolSilenceMs: 0 });
    disabled.passStarted();
    for (let step = 0; step < 12; step++) {
      await vi.advanceTimersByTimeAsync(500);
      disabled.activity();
      disabled.modelOutput();
    }
    expect(disabled.failure).toBeUndefined();
    disabled.dispose();

    // Events without model output (a long command being polled) are not silence.
    const polling = createJobWatch(limits);
    polling.passStarted();
    for (let step = 0; step < 12; step++) {
      await vi.advanceTimersByTimeAsync(500);
      polling.activity();
    }
    expect(polling.failure).toBeUndefined();
    polling.dispose();
  });

  it("reports a cold start once without stopping the job, and not when output came in time or it is disabled", async () => {
    const cold: number[] = [];
    const watch = createJobWatch(limits, { onColdStart: (afterMs) => cold.push(afterMs) });
    watch.passStarted();
    await vi.advanceTimersByTimeAsync(400);
    watch.activity();
    await vi.advanceTimersByTimeAsync(200);
    expect(cold).toEqual([500]);
    expect(watch.failure).toBeUndefined();
    watch.passStarted();
    await vi.advanceTimersByTimeAsync(600);
    expect(cold).toEqual([500]);
    watch.dispose();

    const warm: number[] = [];
    const answered = createJobWatch(limits, { onColdStart: (afterMs) => warm.push(afterMs) });
    answered.passStarted();
    await vi.advanceTimersByTimeAsync(100);
    answered.modelOutput();
    await vi.advanceTimersByTimeAsync(600);
    expect(warm).toEqual([]);
    answered.dispose();

    const off: number[] = [];
    const disabled = createJobWatch({ ...limits, jobColdStartMs: 0 }, { onColdStart: (afterMs) => off.push(afterMs) });
    disabled.passStarted();
    await vi.advanceTimersByTimeAsync(900);
    expect(off).toEqual([]);
    disabled.dispose();
  });

  it("keeps the first failure and stops every timer", async () => {
    const watch = createJobWatch(limits);
    watch.fail("guard-no-edit", "no edit", { tree: "clean" });
    await vi.advanceTimersByTimeAsync(20_000);
    expect(watch.failure).toMatchObject({ code: "guard-no-edit", evidence: { tree: "clean" } });
  });
});
