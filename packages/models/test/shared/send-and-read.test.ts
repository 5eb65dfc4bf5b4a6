// The one send-and-read loop, on a scripted exchange: how it lets go of an answer however an
// attempt ends. Each adapter's tests run the same loop against its provider's wire format.
import { ModelProviderError, type ModelStreamEvent } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import { type ProviderExchange, sendAndRead } from "../../src/shared/send-and-read.js";
import { collect } from "../support/stream.js";

type Item = ModelStreamEvent[];

/** An exchange whose answer yields the scripted items, recording what the loop did to it. */
function scripted(items: readonly Item[], options: { readonly opened?: Promise<void> } = {}) {
  const record = { cancelled: 0, reads: 0, signal: undefined as AbortSignal | undefined };
  const queue = [...items];
  const exchange: ProviderExchange<Item> = {
    async send(signal) {
      record.signal = signal;
      await options.opened;
      return {
        items: {
          next: async () => {
            record.reads++;
            const item = queue.shift();
            return item === undefined ? { done: true, value: undefined } : { done: false, value: item };
          },
        },
        cancel: () => {
          record.cancelled++;
        },
      };
    },
    mapping: () => ({
      map: (item) => item,
      ended: () => new ModelProviderError("model_stream_malformed", "ended early", { provider: "test" }),
    }),
    classify: (error) => (error instanceof Error ? error : new Error(String(error))),
  };
  return { exchange, record };
}

const text: ModelStreamEvent = { type: "text-delta", text: "hi" };
const finish: ModelStreamEvent = { type: "finish", stopReason: "end" };

describe("sendAndRead", () => {
  it("releases a complete answer before yielding its finish: a caller that stops there aborts nothing", async () => {
    const { exchange, record } = scripted([[text], [finish, text]]);
    for await (const event of sendAndRead(exchange, new AbortController().signal)) {
      if (event.type === "finish") break;
    }
    // The body was read on once more, to its end, in the background.
    await new Promise((resolve) => setImmediate(resolve));
    expect(record.reads).toBe(3);
    expect(record.cancelled).toBe(0);
    expect(record.signal?.aborted).toBe(false);
  });

  it("drops what follows a finish or an error in the same item", async () => {
    const failure = new ModelProviderError("model_server_error", "boom", { provider: "test" });
    expect(await collect(sendAndRead(scripted([[text, finish, text]]).exchange, new AbortController().signal))).toEqual(
      [text, finish],
    );
    const failing = scripted([[text, { type: "error", error: failure }, finish]]);
    expect(await collect(sendAndRead(failing.exchange, new AbortController().signal))).toEqual([
      text,
      { type: "error", error: failure },
    ]);
    expect(failing.record.cancelled).toBe(1);
    expect(failing.record.signal?.aborted).toBe(true);
  });

  it("lets go of the answer when the caller leaves early or the body ends before finish", async () => {
    const left = scripted([[text], [text], [finish]]);
    for await (const _event of sendAndRead(left.exchange, new AbortController().signal)) break;
    expect(left.record.cancelled).toBe(1);
    expect(left.record.signal?.aborted).toBe(true);

    const short = scripted([[text]]);
    const events = await collect(sendAndRead(short.exchange, new AbortController().signal));
    expect(events.at(-1)).toMatchObject({ type: "error", error: { message: "ended early" } });
  });

  it("stops waiting for an answer when the caller aborts, and lets go of one that opens later", async () => {
    let open!: () => void;
    const late = scripted([[finish]], { opened: new Promise((resolve) => (open = resolve)) });
    const controller = new AbortController();
    const reason = new Error("stop");
    const collecting = collect(sendAndRead(late.exchange, controller.signal));
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(reason);
    expect(await collecting).toEqual([{ type: "error", error: reason }]);
    expect(late.record.signal?.aborted).toBe(true);
    open();
    await new Promise((resolve) => setImmediate(resolve));
    expect(late.record.cancelled).toBe(1);
  });
});
