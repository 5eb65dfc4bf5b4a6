// The Anthropic example as two OS processes against a loopback server that speaks Anthropic's
// API: each process checks the key, lists the catalog and chats; the second continues the
// Session the first saved. It runs the entry from the workspace (built packages), not from
// packed tarballs, to stay quick.
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  answer,
  FAKE_KEY,
  messageBodies,
  sendAnswer,
  sendError,
} from "../../../packages/models/test/anthropic/support/wire.ts";
import { type HttpFixture, sendJson, startHttpFixture } from "../../../packages/models/test/support/http-fixture.ts";

const exec = promisify(execFile);
const exampleDirectory = fileURLToPath(new URL("../", import.meta.url));
const MODEL = "claude-example-1";

let fixture: HttpFixture;
let sessions: string;
beforeEach(async () => {
  sessions = await mkdtemp(join(tmpdir(), "castellan-anthropic-example-"));
  let answers = 0;
  fixture = await startHttpFixture((request, response) => {
    if (request.headers.authorization !== `Bearer ${FAKE_KEY}`) {
      sendError(response, 401, "authentication_error", "invalid x-api-key");
    } else if (request.method === "GET" && request.path.startsWith("/v1/models")) {
      const model = (id: string) => ({ type: "model", id, display_name: id, created_at: "2026-01-01T00:00:00Z" });
      const data = [model(MODEL), model("claude-other-1")];
      sendJson(response, 200, { data, has_more: false, first_id: MODEL, last_id: "claude-other-1" });
    } else {
      answers++;
      const text = answers === 1 ? "Noted: your project is Cedar." : "Your project is called Cedar.";
      return sendAnswer(response, answer([{ text: [text.slice(0, 6), text.slice(6)] }]));
    }
  });
});
afterEach(async () => {
  await fixture.close();
  await rm(sessions, { recursive: true, force: true });
});

/** The environment of one example process: no real Anthropic settings leak in from outside. */
function environment(apiKey: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("ANTHROPIC_")));
  return {
    ...env,
    ANTHROPIC_API_KEY: apiKey,
    ANTHROPIC_MODEL: MODEL,
    ANTHROPIC_BASE_URL: fixture.url,
    SESSION_DIRECTORY: sessions,
    SESSION_ID: "example",
  };
}

function chat(message: string, apiKey = FAKE_KEY) {
  return exec(process.execPath, ["anthropic.ts", message], { cwd: exampleDirectory, env: environment(apiKey) });
}

describe("the Anthropic session example", () => {
  it("checks the key, lists the catalog, and continues one Session across two processes", async () => {
    const first = await chat("Remember our project is Cedar.");
    expect(first.stdout).toBe("Noted: your project is Cedar.\n");
    expect(first.stderr).toContain(`Models for this key: ${MODEL} (selected), claude-other-1`);
    const second = await chat("What is our project called?");
    expect(second.stdout).toBe("Your project is called Cedar.\n");

    const bodies = messageBodies(fixture.requests);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toMatchObject({ model: MODEL, max_tokens: 4096 });
    expect(bodies[1]?.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Remember our project is Cedar." }] },
      { role: "assistant", content: [{ type: "text", text: "Noted: your project is Cedar." }] },
      { role: "user", content: [{ type: "text", text: "What is our project called?" }] },
    ]);
    expect(fixture.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      "GET /v1/models?limit=1",
      "GET /v1/models?limit=100",
      "POST /v1/messages",
      "GET /v1/models?limit=1",
      "GET /v1/models?limit=100",
      "POST /v1/messages",
    ]);

    const saved = await Promise.all((await readdir(sessions)).map((file) => readFile(join(sessions, file), "utf8")));
    expect(saved.join("")).toContain("Cedar");
    expect(saved.join("") + first.stdout + first.stderr + second.stdout + second.stderr).not.toContain(FAKE_KEY);
  });

  it("stops with a clear message when the key is refused", async () => {
    const badKey = "sk-ant-refused-key-0000";
    const failed = await chat("Hello", badKey).then(
      () => undefined,
      (error: { code?: number; stdout: string; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain("Anthropic refused the key");
    expect(failed?.stderr).not.toContain(badKey);
    expect(messageBodies(fixture.requests)).toHaveLength(0);
  });
});
