// Hosted web search across process restarts: one process runs a turn whose answer searched
// the web; a second only reopens the Session (no request reaches the server); a third reads
// the saved searches through ctx.hostedToolCalls, and its first request sends the search
// blocks back exactly as Anthropic sent them.
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runNode } from "../support/child-process.ts";
import { type HttpFixture, startHttpFixture } from "../support/http-fixture.ts";
import { readFiles, removeDir, tempDir } from "../support/temp-dir.ts";
import { answer, FAKE_KEY, messageBodies, sendAnswer } from "./support/wire.ts";

const script = fileURLToPath(new URL("./support/web-search-session.ts", import.meta.url));
const SEARCH_ID = "srvtoolu_01RestartSearch";
// Characters a careless round trip would change: JSON escapes, a line separator, non-ASCII.
const ENCRYPTED = 'EqgfCioIARgBIiQ3\u2028"page"\\content\u00e9==';
const serverToolUse = { type: "server_tool_use", id: SEARCH_ID, name: "web_search", input: { query: "cedar docs" } };
const searchResult = {
  type: "web_search_tool_result",
  tool_use_id: SEARCH_ID,
  content: [
    {
      type: "web_search_result",
      title: "Cedar documentation",
      url: "https://cedar.example/docs",
      encrypted_content: ENCRYPTED,
      page_age: "May 12, 2026",
    },
  ],
};

let fixture: HttpFixture;
let directory: string;
beforeEach(async () => {
  directory = await tempDir("castellan-anthropic-search-restart-");
  let call = 0;
  fixture = await startHttpFixture((_request, response) => {
    call++;
    if (call === 1) {
      return sendAnswer(
        response,
        answer(
          [
            { streamed: { ...serverToolUse, input: {} }, json: ['{"query": "cedar', ' docs"}'] },
            { whole: searchResult },
            { text: ["Cedar has documentation."] },
          ],
          { usage: { input_tokens: 900, output_tokens: 20, server_tool_use: { web_search_requests: 1 } } },
        ),
      );
    }
    if (call === 2) {
      return sendAnswer(
        response,
        answer([{ tool: { id: "toolu_read", name: "read_searches", json: ["{}"] } }], { stopReason: "tool_use" }),
      );
    }
    return sendAnswer(response, answer([{ text: ["I searched for cedar docs."] }]));
  });
});
afterEach(async () => {
  await fixture.close();
  await removeDir(directory);
});

async function runProcess(mode: "open" | "run", message = "") {
  const { stdout } = await runNode(
    script,
    [message],
    { FIXTURE_URL: fixture.url, SESSION_DIRECTORY: directory, FAKE_ANTHROPIC_KEY: FAKE_KEY, MODE: mode },
    "ANTHROPIC_",
  );
  return JSON.parse(stdout.trim());
}

describe("hosted web search across process restarts", () => {
  it("keeps the searches as Session facts and sends their blocks back unchanged", async () => {
    const first = await runProcess("run", "Find Cedar's docs.");
    expect(first.text).toBe("Cedar has documentation.");
    expect(first.hosted.map((event: { kind: string }) => event.kind)).toEqual(["hosted-tool-start", "hosted-tool-end"]);
    expect(first.hosted[1]).toMatchObject({
      callId: SEARCH_ID,
      toolName: "web_search",
      ok: true,
      queries: ["cedar docs"],
      sources: [{ url: "https://cedar.example/docs", title: "Cedar documentation" }],
    });
    expect(first.usage.webSearchRequests).toBe(1);
    const firstBody = messageBodies(fixture.requests)[0];
    expect(firstBody?.tools).toContainEqual({ type: "web_search_20250305", name: "web_search", max_uses: 3 });

    const reopened = await runProcess("open");
    expect(reopened).toEqual({ opened: "search" });
    expect(messageBodies(fixture.requests)).toHaveLength(1);

    const third = await runProcess("run", "What did you search?");
    expect(third.text).toBe("I searched for cedar docs.");
    expect(JSON.parse(third.toolResult.content[0].text)).toEqual([
      {
        callId: SEARCH_ID,
        queries: ["cedar docs"],
        sources: [{ url: "https://cedar.example/docs", title: "Cedar documentation" }],
        ok: true,
        runId: expect.any(String),
        turn: 1,
      },
    ]);
    const bodies = messageBodies(fixture.requests);
    expect(bodies).toHaveLength(3);
    expect(((bodies[1]?.messages ?? []) as unknown[])[1]).toEqual({
      role: "assistant",
      content: [serverToolUse, searchResult, { type: "text", text: "Cedar has documentation." }],
    });
    // Byte for byte on the wire, as the first process received them.
    const raw = fixture.requests.filter((request) => request.path === "/v1/messages")[1]?.body ?? "";
    expect(raw).toContain(JSON.stringify(serverToolUse));
    expect(raw).toContain(JSON.stringify(searchResult));
    expect((await readFiles(directory)).join("")).not.toContain(FAKE_KEY);
  });
});
