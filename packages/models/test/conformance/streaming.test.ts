// Conformance, answers: text, a tool round trip with streamed arguments, an image in a tool
// result, usage and cost, and a complete answer's request ending on its own. Every adapter
// (drivers/index.ts) runs every scenario against its own wire format.
import type { Socket } from "node:net";
import { defineAgent, defineTool, type ModelStreamEvent, type ToolOutput } from "@castellan/harness";
import { openSession } from "@castellan/node-runner";
import { afterEach, describe, expect, vi } from "vitest";
import { userRequest } from "../support/request.ts";
import { neverAborts } from "../support/signal.ts";
import { collect } from "../support/stream.ts";
import type { ConformanceDriver } from "./driver.ts";
import { drivers } from "./drivers/index.ts";
import { expectation, USAGE } from "./exceptions.ts";
import { type ScenarioFixture, serve, stream } from "./support/fixture.ts";
import { assertNoKey } from "./support/no-key.ts";
import { scenario } from "./support/scenario.ts";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

let fixture: ScenarioFixture | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await fixture?.close();
  fixture = undefined;
});

/** Events other than the adapter's own provider blocks, which may sit anywhere in their place. */
const withoutContent = (events: readonly ModelStreamEvent[]) => events.filter((event) => event.type !== "content");

/** A read-only lookup tool answering `output`; records its inputs. */
function lookupTool(output: ToolOutput) {
  const inputs: unknown[] = [];
  const tool = defineTool({
    name: "lookup",
    description: "Looks a city up.",
    readOnly: true,
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: (input: { city: string }) => {
      inputs.push(input);
      return output;
    },
  });
  return { tool, inputs };
}

/** Runs one Session turn on `driver`'s binding with `tool`, returning the answer's text. */
async function runWithTool(driver: ConformanceDriver, tool: ReturnType<typeof defineTool>, url: string) {
  const model = driver.bind(url);
  const session = await openSession({ agent: defineAgent("conformance.tools", { model, tools: [tool] }) });
  try {
    return (await session.run("Weather in Oslo?").result).text;
  } finally {
    await session.close();
  }
}

describe.each(drivers.map((driver) => [driver.name, driver] as const))("%s", (_name, driver) => {
  scenario("text", async () => {
    fixture = await serve(driver, stream(driver, driver.text(["Hel", "lo", " there"])));
    const events = await collect(driver.bind(fixture.url).stream(userRequest("Hi"), { signal: neverAborts() }));
    expect(withoutContent(events)).toEqual([
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo" },
      { type: "text-delta", text: " there" },
      { type: "usage", usage: { inputTokens: 12, outputTokens: 3 } },
      { type: "finish", stopReason: "end" },
    ]);
    expect(events.at(-2)?.type).toBe("usage");
    assertNoKey(events);
  });

  scenario("tool round trip", async () => {
    fixture = await serve(
      driver,
      stream(driver, driver.toolCall({ id: "call_1", name: "lookup", pieces: ['{"ci', 'ty":"Os', 'lo"}'] })),
      stream(driver, driver.text(["Sunny in Oslo."])),
    );
    const { tool, inputs } = lookupTool("Oslo: sunny, 21°C");
    expect(await runWithTool(driver, tool, fixture.url)).toBe("Sunny in Oslo.");
    expect(inputs).toEqual([{ city: "Oslo" }]);
    const [, second] = fixture.inference();
    expect(driver.toolResult(second?.json, "call_1")).toEqual({ text: "Oslo: sunny, 21°C", images: [] });
  });

  scenario("image in a tool result", async () => {
    fixture = await serve(
      driver,
      stream(driver, driver.toolCall({ id: "call_img", name: "lookup", pieces: ['{"city":"Oslo"}'] })),
      stream(driver, driver.text(["A blue sky."])),
    );
    const { tool } = lookupTool({
      content: [
        { type: "text", text: "Oslo webcam:" },
        { type: "image", mediaType: "image/png", data: PNG },
      ],
    });
    expect(await runWithTool(driver, tool, fixture.url)).toBe("A blue sky.");
    const [, second] = fixture.inference();
    const { asImage } = expectation(driver.name, "image in a tool result", { asImage: true });
    expect(driver.toolResult(second?.json, "call_img")).toEqual({
      text: asImage ? expect.stringContaining("Oslo webcam:") : expect.stringMatching(`Oslo webcam:.*${PNG}`),
      images: asImage ? [PNG] : [],
    });
  });

  scenario("usage and cost", async () => {
    fixture = await serve(driver, stream(driver, driver.text(["ok"], USAGE.wire)));
    const model = driver.bind(fixture.url, { pricing: USAGE.pricing });
    const events = await collect(model.stream(userRequest("Hi"), { signal: neverAborts() }));
    const { usage } = expectation(driver.name, "usage and cost", {
      usage: {
        inputTokens: 1_000,
        outputTokens: 200,
        cacheReadTokens: 400,
        cacheWriteTokens: 100,
        // The uncached 500 at the input price, each cache part and the output at its own.
        costUsd: (500 * 2 + 400 * 0.5 + 100 * 2.5 + 200 * 8) / 1e6,
      },
    });
    const reported = events.filter((event) => event.type === "usage");
    expect(reported).toEqual([{ type: "usage", usage: { ...usage, costUsd: expect.closeTo(usage.costUsd ?? 0, 12) } }]);
  });

  scenario("complete answer", async () => {
    const sockets: Socket[] = [];
    const answer = stream(driver, driver.text(["Hello"]));
    fixture = await serve(driver, async (request, response) => {
      sockets.push(response.socket as Socket);
      await answer(request, response);
    });
    // What every request was sent with (the SDKs call the global fetch).
    const signals: AbortSignal[] = [];
    const fetch = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
      if (init?.signal) signals.push(init.signal);
      return fetch(input, init);
    });
    // Body cancels by the adapters' own code (an SDK may cancel a reader of its own).
    const ownCancels: string[] = [];
    const cancel = ReadableStreamDefaultReader.prototype.cancel;
    vi.spyOn(ReadableStreamDefaultReader.prototype, "cancel").mockImplementation(function (
      this: ReadableStreamDefaultReader,
      reason?: unknown,
    ) {
      const stack = new Error("cancelled").stack ?? "";
      if (stack.includes("/packages/models/src/")) ownCancels.push(stack);
      return cancel.call(this, reason);
    });
    const model = driver.bind(fixture.url);
    for (let call = 0; call < 3; call++) {
      const events = await collect(model.stream(userRequest("Hi"), { signal: neverAborts() }));
      expect(events.filter((event) => event.type === "error")).toEqual([]);
      expect(events.at(-1)).toEqual({ type: "finish", stopReason: "end" });
      // The fixture ends each body in its own chunk, a moment after the last event: once it
      // has, the connection is free for the next call.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(signals).toHaveLength(3);
    expect(signals.filter((signal) => signal.aborted)).toEqual([]);
    expect(ownCancels).toEqual([]);
    expect(sockets).toHaveLength(3);
    expect(new Set(sockets).size).toBe(1);
    expect(sockets[0]?.destroyed).toBe(false);
  });
});
