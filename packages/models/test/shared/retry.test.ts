// The shared retry policy and loop: delays, the wait that ends on abort, and retrying only
// before an attempt has yielded anything.
import { ModelProviderError, type ModelStreamEvent } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import { MAX_RETRY_DELAY_MS, retryDelay, waitUnlessAborted } from "../../src/shared/retry.js";
import { retryBeforeFirstEvent } from "../../src/shared/retry-stream.js";
import { collect } from "../support/stream.js";

const overloaded = (retryAfterMs?: number) =>
  new ModelProviderError("model_overloaded", "busy", {
    provider: "test",
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });

const finish: ModelStreamEvent = { type: "finish", stopReason: "end" };
const text: ModelStreamEvent = { type: "text-delta", text: "hi" };

describe("retryDelay", () => {
  it("backs off 0.5 s doubling up to 8 s without a retry-after, and honours one up to 60 s", () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((attempt) => retryDelay(overloaded(), attempt, 10))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000, 8000,
    ]);
    expect(retryDelay(overloaded(0), 0, 2)).toBe(0);
    expect(retryDelay(overloaded(MAX_RETRY_DELAY_MS), 0, 2)).toBe(MAX_RETRY_DELAY_MS);
    expect(retryDelay(overloaded(MAX_RETRY_DELAY_MS + 1), 0, 2)).toBeUndefined();
  });

  it("gives up after maxRetries, and on errors that are not retryable ModelProviderErrors", () => {
    expect(retryDelay(overloaded(0), 2, 2)).toBeUndefined();
    expect(retryDelay(new ModelProviderError("model_auth", "no", { provider: "test" }), 0, 2)).toBeUndefined();
    expect(retryDelay(new Error("plain"), 0, 2)).toBeUndefined();
  });
});

describe("waitUnlessAborted", () => {
  it("resolves true after the wait, and false at once for an aborted signal", async () => {
    expect(await waitUnlessAborted(0, new AbortController().signal)).toBe(true);
    const controller = new AbortController();
    controller.abort();
    expect(await waitUnlessAborted(60_000, controller.signal)).toBe(false);
  });

  it("resolves false as soon as the signal aborts during the wait", async () => {
    const controller = new AbortController();
    const waiting = waitUnlessAborted(60_000, controller.signal);
    controller.abort();
    expect(await waiting).toBe(false);
  });
});

describe("retryBeforeFirstEvent", () => {
  function attempts(...scripts: ModelStreamEvent[][]) {
    let calls = 0;
    const next = async function* () {
      const script = scripts[calls++] ?? [];
      yield* script;
    };
    return { next, calls: () => calls };
  }

  it("retries a retryable failure that came before any event, then streams the answer", async () => {
    const script = attempts([{ type: "error", error: overloaded(0) }], [text, finish]);
    const events = await collect(
      retryBeforeFirstEvent(script.next, { maxRetries: 2, signal: new AbortController().signal }),
    );
    expect(events).toEqual([text, finish]);
    expect(script.calls()).toBe(2);
  });

  it("never retries after the first event, and stops after maxRetries", async () => {
    const failure = overloaded(0);
    const started = attempts([text, { type: "error", error: failure }], [finish]);
    expect(
      await collect(retryBeforeFirstEvent(started.next, { maxRetries: 2, signal: new AbortController().signal })),
    ).toEqual([text, { type: "error", error: failure }]);
    expect(started.calls()).toBe(1);

    const failing = attempts(
      ...Array.from({ length: 5 }, () => [{ type: "error", error: failure } as ModelStreamEvent]),
    );
    const events = await collect(
      retryBeforeFirstEvent(failing.next, { maxRetries: 2, signal: new AbortController().signal }),
    );
    expect(events).toEqual([{ type: "error", error: failure }]);
    expect(failing.calls()).toBe(3);
  });

  it("ends with the abort's reason when aborted while waiting to retry, and not retries once aborted", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    let calls = 0;
    const next = async function* (): AsyncGenerator<ModelStreamEvent> {
      calls++;
      // A macrotask: it runs once the loop has decided to retry and is waiting the 30 s.
      setTimeout(() => controller.abort(reason), 0);
      yield { type: "error", error: overloaded(30_000) };
    };
    const events = await collect(retryBeforeFirstEvent(next, { maxRetries: 2, signal: controller.signal }));
    expect(events).toEqual([{ type: "error", error: reason }]);
    expect(calls).toBe(1);

    // Once the signal has aborted, even a retryable failure is passed on rather than retried.
    const late = overloaded(0);
    const again = await collect(
      retryBeforeFirstEvent(
        async function* () {
          calls++;
          yield { type: "error", error: late };
        },
        { maxRetries: 2, signal: controller.signal },
      ),
    );
    expect(again).toEqual([{ type: "error", error: late }]);
    expect(calls).toBe(2);
  });
});
