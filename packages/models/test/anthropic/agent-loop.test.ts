// A whole agent loop through @castellan/node-runner on the Anthropic binding: the model asks
// for a tool, the Runner runs it, the result (text and an image) goes back, and the model
// answers; the Session log is saved by the file store.
import { pathToFileURL } from "node:url";
import { defineAgent, defineTool, type RunEvent } from "@castellan/harness";
import { anthropic } from "@castellan/models/anthropic";
import { createFileSessionStore, openSession } from "@castellan/node-runner";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HttpFixture, startHttpFixture } from "../support/http-fixture.ts";
import { readFiles, removeDir, tempDir } from "../support/temp-dir.ts";
import { answer, assertNoKey, FAKE_KEY, MODEL, messageBodies, sendAnswer } from "./support/wire.ts";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const SIGNATURE = "ErUBCkYIBRgCIkBsig/+==";

let fixture: HttpFixture;
let directory: string;
beforeEach(async () => {
  directory = await tempDir("castellan-anthropic-loop-");
  let call = 0;
  fixture = await startHttpFixture((_request, response) => {
    call++;
    if (call === 1) {
      return sendAnswer(
        response,
        answer(
          [
            { thinking: ["I should look it up."], signature: SIGNATURE },
            { text: ["Looking up Cedar."] },
            { tool: { id: "toolu_weather", name: "weather", json: ['{"city":', '"Cedar"}'] } },
          ],
          { stopReason: "tool_use", usage: { input_tokens: 50, output_tokens: 20 } },
        ),
      );
    }
    return sendAnswer(
      response,
      answer([{ text: ["It is sunny in Cedar."] }], { usage: { input_tokens: 90, output_tokens: 8 } }),
    );
  });
});
afterEach(async () => {
  await fixture.close();
  await removeDir(directory);
});

describe("an agent loop on the Anthropic binding", () => {
  it("runs a tool round trip and continues with the result", async () => {
    const weather = defineTool({
      name: "weather",
      description: "The weather in a city.",
      readOnly: true,
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      execute: async ({ city }: { city: string }) => ({
        content: [
          { type: "text" as const, text: `${city}: sunny, 21°C` },
          { type: "image" as const, mediaType: "image/png", data: PNG },
        ],
      }),
    });
    const model = anthropic({
      apiKey: FAKE_KEY,
      model: MODEL,
      baseURL: fixture.url,
      thinking: { budgetTokens: 2_048 },
      pricing: { inputPerMillion: 3, outputPerMillion: 15 },
    });
    const agent = defineAgent("test.anthropic-loop", { model, instructions: "Answer briefly.", tools: [weather] });
    const store = createFileSessionStore({ directory: pathToFileURL(`${directory}/`) });
    const session = await openSession({ agent, id: "loop", store, permissions: "read-only" });
    const events: RunEvent[] = [];
    try {
      const run = session.run("What is the weather in Cedar?");
      for await (const event of run) events.push(event);
      const result = await run.result;
      expect(result.text).toBe("It is sunny in Cedar.");
      expect(result.usage).toMatchObject({ inputTokens: 140, outputTokens: 28 });
    } finally {
      await session.close();
    }

    const [first, second] = messageBodies(fixture.requests);
    expect(first).toMatchObject({
      system: expect.stringContaining("Answer briefly."),
      thinking: { type: "enabled", budget_tokens: 2_048 },
      tools: [{ name: "weather", input_schema: { type: "object" } }],
      messages: [{ role: "user", content: [{ type: "text", text: "What is the weather in Cedar?" }] }],
    });
    expect(second?.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "What is the weather in Cedar?" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "I should look it up.", signature: SIGNATURE },
          { type: "text", text: "Looking up Cedar." },
          { type: "tool_use", id: "toolu_weather", name: "weather", input: { city: "Cedar" } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_weather",
            content: [
              { type: "text", text: "Cedar: sunny, 21°C" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
            ],
            is_error: false,
          },
        ],
      },
    ]);
    expect(events.filter((event) => event.kind === "assistant-thinking-delta")).toHaveLength(1);
    expect(events.some((event) => event.kind === "tool-end")).toBe(true);

    const saved = await readFiles(directory);
    expect(saved.join("")).toContain(SIGNATURE);
    assertNoKey(events, saved);
    expect(saved.join("")).not.toContain(FAKE_KEY);
  });
});
