// A whole agent loop through @castellan/node-runner on openaiCompatible against the loopback
// server: a tool round trip whose tool returns an image (sent back as a labelled user image
// after the tool reply), usage and cost on the run, and the conversation continued by a
// reopened Session from the file store, with the key in no saved record.
import { pathToFileURL } from "node:url";
import { defineAgent, defineTool, type RunEvent } from "@castellan/harness";
import { createFileSessionStore, openSession } from "@castellan/node-runner";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiCompatible } from "../../src/openai-compatible/index.js";
import { type HttpFixture, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { readFiles, removeDir, tempDir } from "../support/temp-dir.js";
import { chatRequests, fakeKey, textAnswer, toolCallAnswer } from "./chat-fixture.js";

const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

let fixture: HttpFixture;
let directory: string;

beforeEach(async () => {
  directory = await tempDir("castellan-compatible-loop-");
  let call = 0;
  fixture = await startHttpFixture((_request, response) => {
    call++;
    if (call === 1) {
      return sendSse(
        response,
        toolCallAnswer([{ id: "call_shot", name: "screenshot", pieces: ['{"page":', '"home"}'] }]),
      );
    }
    if (call === 2) return sendSse(response, textAnswer(["The page ", "is blue."], [120, 6]));
    return sendSse(response, textAnswer(["You asked about the home page."]));
  });
});

afterEach(async () => {
  await fixture.close();
  await removeDir(directory);
});

const screenshot = defineTool({
  name: "screenshot",
  description: "Capture a page as an image.",
  inputSchema: { type: "object", properties: { page: { type: "string" } }, required: ["page"] },
  readOnly: true,
  execute: (input: { page: string }) => [
    { type: "text", text: `Captured ${input.page}.` },
    { type: "image", mediaType: "image/png", data: pixel },
  ],
});

function agent() {
  return defineAgent("test.compatible-loop", {
    model: openaiCompatible({
      baseURL: `${fixture.url}/v1`,
      apiKey: fakeKey,
      model: "vision-model",
      pricing: { inputPerMillion: 1, outputPerMillion: 2 },
    }),
    instructions: "Describe pages.",
    tools: [screenshot],
  });
}

describe("openaiCompatible in an agent loop", () => {
  it("runs a tool round trip with an image and continues the Session after reopening", async () => {
    const store = createFileSessionStore({ directory: pathToFileURL(`${directory}/`) });
    const events: RunEvent[] = [];
    const first = await openSession({ agent: agent(), id: "loop", store });
    try {
      const run = first.run("What colour is the home page?");
      for await (const event of run) events.push(event);
      const result = await run.result;
      expect(result.text).toBe("The page is blue.");
    } finally {
      await first.close();
    }

    const [toolTurn, answerTurn] = chatRequests(fixture.requests);
    expect(toolTurn?.messages).toEqual([
      { role: "system", content: expect.stringContaining("Describe pages.") },
      { role: "user", content: "What colour is the home page?" },
    ]);
    expect(toolTurn?.tools?.[0]?.function?.name).toBe("screenshot");
    expect(answerTurn?.messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_shot", type: "function", function: { name: "screenshot", arguments: '{"page":"home"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_shot", content: "Captured home." },
      {
        role: "user",
        content: [
          { type: "text", text: "Image from tool call call_shot (screenshot):" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${pixel}` } },
        ],
      },
    ]);
    const usage = events.filter((event) => event.kind === "model-usage");
    expect(usage.map((event) => (event.kind === "model-usage" ? event.usage : undefined))).toEqual([
      { inputTokens: 20, outputTokens: 8, costUsd: (20 * 1 + 8 * 2) / 1e6 },
      { inputTokens: 120, outputTokens: 6, costUsd: (120 * 1 + 6 * 2) / 1e6 },
    ]);

    const second = await openSession({ agent: agent(), id: "loop", store });
    try {
      expect((await second.run("Which page did I ask about?").result).text).toBe("You asked about the home page.");
    } finally {
      await second.close();
    }
    const continued = chatRequests(fixture.requests)[2]?.messages;
    expect(continued?.slice(1, 6)).toEqual([
      ...(answerTurn?.messages.slice(1) ?? []),
      { role: "assistant", content: "The page is blue." },
    ]);
    expect(continued?.at(-1)).toEqual({ role: "user", content: "Which page did I ask about?" });

    for (const saved of await readFiles(directory)) {
      expect(saved).not.toContain(fakeKey);
    }
    expect(JSON.stringify(events)).not.toContain(fakeKey);
  });
});
