// The codex adapter under a real agent loop (@castellan/node-runner): tool round trips with
// images, and reasoning continuation across a process restart with the file store.
import { fileURLToPath } from "node:url";
import { defineAgent, defineTool, type RunEvent } from "@castellan/harness";
import { createFileSessionStore, openSession } from "@castellan/node-runner";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codex } from "../../src/codex/index.js";
import { runNode } from "../support/child-process.js";
import { type HttpFixture, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { readFiles, removeDir, tempDir } from "../support/temp-dir.js";
import { FAKE_KEY, ResponsesStream } from "./support/responses-sse.js";

const child = fileURLToPath(new URL("./fixtures/codex-session.ts", import.meta.url));
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

let directory: string;
let fixture: HttpFixture | undefined;
beforeEach(async () => {
  directory = await tempDir("castellan-codex-");
});
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  await removeDir(directory);
});

/** Everything the store saved, as one string. */
async function savedLogs(): Promise<string> {
  return (await readFiles(directory)).join("");
}

/** Serves one prepared stream per request, in order. */
async function serveInOrder(streams: ResponsesStream[]): Promise<HttpFixture> {
  let next = 0;
  fixture = await startHttpFixture((_request, response) => {
    const stream = streams[next++];
    if (!stream) throw new Error("no more answers prepared");
    return sendSse(response, stream.events);
  });
  return fixture;
}

describe("codex in a Session", () => {
  it("runs a full agent loop: reasoning, a tool call with an image result, and the answer", async () => {
    const first = new ResponsesStream("resp_1")
      .reasoning(["I should look at the page."], "gAAAA-enc-first")
      .functionCall("call_shot", "screenshot", ['{"page":', '"home"}']);
    first.completed({ input: 100, output: 20 });
    const second = new ResponsesStream("resp_2").text(["The page ", "is blue."]);
    second.completed({ input: 180, output: 8, cached: 90 });
    const server = await serveInOrder([first, second]);

    const shots: unknown[] = [];
    const screenshot = defineTool({
      name: "screenshot",
      description: "Capture a page",
      inputSchema: { type: "object", properties: { page: { type: "string" } }, required: ["page"] },
      execute: (input: { page: string }) => {
        shots.push(input);
        return {
          content: [
            { type: "text" as const, text: `Captured ${input.page}:` },
            { type: "image" as const, mediaType: "image/png", data: PNG },
          ],
        };
      },
    });
    const model = codex({ apiKey: FAKE_KEY, model: "gpt-5-codex", baseURL: server.url, maxRetries: 0 });
    const agent = defineAgent("test.codex-loop", {
      model,
      instructions: "Look before answering.",
      tools: [screenshot],
    });
    const session = await openSession({
      agent,
      id: "loop",
      store: createFileSessionStore({ directory }),
      permissions: "full-access",
    });
    const events: RunEvent[] = [];
    let text: string;
    try {
      const current = session.run("What colour is the home page?");
      for await (const event of current) events.push(event);
      text = (await current.result).text;
    } finally {
      await session.close();
    }

    expect(text).toBe("The page is blue.");
    expect(shots).toEqual([{ page: "home" }]);
    expect(events.filter((event) => event.kind === "assistant-thinking-delta")).toHaveLength(1);
    const usage = events.filter((event) => event.kind === "model-usage").map((event) => event.usage);
    expect(usage).toEqual([
      { inputTokens: 100, outputTokens: 20 },
      { inputTokens: 180, outputTokens: 8, cacheReadTokens: 90 },
    ]);

    const followUp = server.requests[1]?.json as { input: unknown[]; instructions: string; tools: unknown[] };
    expect(followUp.instructions).toContain("Look before answering.");
    expect(followUp.input).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "What colour is the home page?" }] },
      first.output[0],
      first.output[1],
      {
        type: "function_call_output",
        call_id: "call_shot",
        output: [
          { type: "input_text", text: "Captured home:" },
          { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
        ],
      },
    ]);
    // Reasoning and the call go back exactly as they came.
    expect(server.requests[1]?.body).toContain(JSON.stringify(first.output[0]));
    expect(server.requests[1]?.body).toContain(JSON.stringify(first.output[1]));
    // The credential went to the provider and nowhere else.
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${FAKE_KEY}`);
    expect(JSON.stringify(events)).not.toContain(FAKE_KEY);
    const logs = await savedLogs();
    expect(logs).toContain("gAAAA-enc-first");
    expect(logs).not.toContain(FAKE_KEY);
  });

  it("continues its reasoning in a second OS process: the saved reasoning item goes back byte for byte", async () => {
    const first = new ResponsesStream("resp_a").reasoning(["Cedar is the name."], "gAAAA+enc/2==").text(["Noted."]);
    first.completed();
    const second = new ResponsesStream("resp_b").text(["Your project is Cedar."]);
    second.completed();
    const server = await serveInOrder([first, second]);
    const env = { CODEX_BASE_URL: server.url, CODEX_TEST_KEY: FAKE_KEY, SESSION_DIRECTORY: directory };

    const one = await runNode(child, ["Remember our project is Cedar."], env);
    expect(JSON.parse(one.stdout.trim().split("\n").at(-1) as string)).toEqual({ text: "Noted." });
    const two = await runNode(child, ["What is our project called?"], env);
    expect(JSON.parse(two.stdout.trim().split("\n").at(-1) as string)).toEqual({ text: "Your project is Cedar." });

    const restored = server.requests[1];
    expect(restored?.body).toContain(JSON.stringify(first.output[0]));
    const body = restored?.json as { input: unknown[]; reasoning: unknown } | undefined;
    expect(body?.input).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "Remember our project is Cedar." }] },
      first.output[0],
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Noted.", annotations: [] }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "What is our project called?" }] },
    ]);
    expect(body?.reasoning).toEqual({ effort: "medium", summary: "auto" });
    for (const output of [one.stdout, one.stderr, two.stdout, two.stderr, await savedLogs()]) {
      expect(output).not.toContain(FAKE_KEY);
    }
  });
});
