// A reasoning conversation through OpenRouter continued across a process restart: one process
// runs a tool round trip whose answers carry reasoning_details and saves the Session with the
// file store; another reopens it, and its request carries every assistant message's
// reasoning_details byte for byte as the first process assembled them.
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chatRequests, fakeKey, textAnswer, toolCallAnswer } from "../openai-compatible/chat-fixture.js";
import { claudeDetails, claudeReasoning, reasoningThen } from "../openai-compatible/reasoning-fixture.js";
import { runNode } from "../support/child-process.js";
import { type HttpFixture, sendJson, sendSse, startHttpFixture } from "../support/http-fixture.js";
import { readFiles, removeDir, tempDir } from "../support/temp-dir.js";
import { catalog } from "./catalog-fixture.js";

const script = fileURLToPath(new URL("./support/reasoning-session.ts", import.meta.url));
// Characters a careless round trip would change: JSON escapes, a line separator, non-ASCII.
const SIGNATURE = 'EqQBCkYIBRgCIkB/+sig==\u2028"quoted"\\slash\u00e9\u{1F512}end';
const REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT==";
const firstPieces = ["The user wants ", "the Oslo forecast."];
const secondPieces = ["Rain, so say so."];

let fixture: HttpFixture;
let directory: string;

beforeEach(async () => {
  directory = await tempDir("castellan-openrouter-restart-");
  const answers = [
    reasoningThen(
      claudeReasoning(firstPieces, SIGNATURE, REDACTED),
      toolCallAnswer([{ id: "toolu_01", name: "forecast", pieces: ['{"city":', '"Oslo"}'] }]),
    ),
    reasoningThen(claudeReasoning(secondPieces, "sig-2"), textAnswer(["Rain in Oslo."])),
    textAnswer(["Yes, take an umbrella."]),
  ];
  fixture = await startHttpFixture((request, response) => {
    if (request.method === "GET" && request.path === "/api/v1/models") return sendJson(response, 200, catalog);
    const next = answers.shift();
    if (!next) throw new Error("no more answers prepared");
    return sendSse(response, next);
  });
});

afterEach(async () => {
  await fixture.close();
  await removeDir(directory);
});

function runProcess(message: string) {
  // No real OpenRouter settings from outside reach the child; the binding reads none anyway.
  return runNode(
    script,
    [message],
    { FIXTURE_URL: `${fixture.url}/api/v1`, SESSION_DIRECTORY: directory, FAKE_OPENROUTER_KEY: fakeKey },
    "OPENROUTER",
  );
}

describe("OpenRouter reasoning across a process restart", () => {
  it("sends the saved reasoning_details back unchanged from the second process", async () => {
    const first = await runProcess("Weather in Oslo?");
    expect(first.stdout).toBe("Rain in Oslo.\n");
    const second = await runProcess("Do I need an umbrella?");
    expect(second.stdout).toBe("Yes, take an umbrella.\n");

    const requests = chatRequests(fixture.requests);
    expect(requests).toHaveLength(3);
    const toolTurn = claudeDetails(firstPieces, SIGNATURE, REDACTED);
    const answerTurn = claudeDetails(secondPieces, "sig-2");
    expect(requests[2]?.messages).toEqual([
      { role: "system", content: "Use tools." },
      { role: "user", content: "Weather in Oslo?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "toolu_01", type: "function", function: { name: "forecast", arguments: '{"city":"Oslo"}' } },
        ],
        reasoning_details: toolTurn,
      },
      { role: "tool", tool_call_id: "toolu_01", content: "Rain in Oslo, 12°C." },
      { role: "assistant", content: "Rain in Oslo.", reasoning_details: answerTurn },
      { role: "user", content: "Do I need an umbrella?" },
    ]);
    // Byte for byte on the wire, as the first process assembled them.
    const raw = fixture.requests.filter((request) => request.method === "POST")[2]?.body ?? "";
    expect(raw).toContain(`"reasoning_details":${JSON.stringify(toolTurn)}`);
    expect(raw).toContain(`"reasoning_details":${JSON.stringify(answerTurn)}`);
    // The first process sent the tool turn's details back within its own loop too.
    expect(requests[1]?.messages[2]?.reasoning_details).toEqual(toolTurn);

    const saved = await readFiles(directory);
    expect(saved.join("")).toContain(REDACTED);
    expect(saved.join("")).not.toContain(fakeKey);
    expect(first.stdout + first.stderr + second.stdout + second.stderr).not.toContain(fakeKey);
  });
});
