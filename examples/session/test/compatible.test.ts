// The compatible example run as two OS processes from the workspace against a loopback Chat
// Completions server: the second process continues the Session the first one saved, so its
// request carries the first exchange. The key reaches only the Authorization header.
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HttpFixture, sendSse, startHttpFixture } from "../../../packages/models/test/support/http-fixture.ts";
import { exec } from "../../test-support/pack.ts";

const exampleDirectory = fileURLToPath(new URL("../", import.meta.url));
const fakeKey = "sk-example-FAKE-0123456789";

/** A streamed text answer in Chat Completions framing. */
function answer(text: string) {
  const base = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1_700_000_000, model: "fixture-model" };
  return [
    { data: { ...base, choices: [{ index: 0, delta: { role: "assistant", content: text }, finish_reason: null }] } },
    { data: { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] } },
    { data: { ...base, choices: [], usage: { prompt_tokens: 30, completion_tokens: 5, total_tokens: 35 } } },
    { data: "[DONE]" },
  ];
}

let fixture: HttpFixture;
let sessions: string;

beforeEach(async () => {
  sessions = await mkdtemp(join(tmpdir(), "castellan-compatible-example-"));
  const replies = ["Noted: your project is Cedar.", "Your project is called Cedar."];
  fixture = await startHttpFixture((_request, response) => sendSse(response, answer(replies.shift() ?? "No more.")));
});

afterEach(async () => {
  await fixture.close();
  await rm(sessions, { recursive: true, force: true });
});

describe("examples/session/compatible.ts", () => {
  it("continues one Session across two processes", async () => {
    const env = {
      ...process.env,
      MODEL_BASE_URL: `${fixture.url}/v1`,
      MODEL_API_KEY: fakeKey,
      MODEL_ID: "fixture-model",
      SESSION_DIRECTORY: sessions,
      SESSION_ID: "compatible-test",
    };
    const node = (message: string) =>
      exec(process.execPath, ["compatible.ts", message], { cwd: exampleDirectory, env });

    const first = await node("Remember our project is Cedar.");
    expect(first.stdout).toContain("Noted: your project is Cedar.");
    const second = await node("What is our project called?");
    expect(second.stdout).toContain("Your project is called Cedar.");

    expect(fixture.requests).toHaveLength(2);
    const request = fixture.requests[1]?.json as { model: string; messages: { role: string; content: unknown }[] };
    expect(request.model).toBe("fixture-model");
    expect(request.messages.slice(1)).toEqual([
      { role: "user", content: "Remember our project is Cedar." },
      { role: "assistant", content: "Noted: your project is Cedar." },
      { role: "user", content: "What is our project called?" },
    ]);
    expect(fixture.requests[1]?.headers.authorization).toBe(`Bearer ${fakeKey}`);

    for (const output of [first.stdout, first.stderr, second.stdout, second.stderr]) {
      expect(output).not.toContain(fakeKey);
    }
    for (const file of await readdir(sessions)) {
      expect(await readFile(join(sessions, file), "utf8")).not.toContain(fakeKey);
    }
  });

  it("explains the missing configuration", async () => {
    const env = { ...process.env, MODEL_BASE_URL: "", MODEL_API_KEY: "", MODEL_ID: "" };
    const failure = await exec(process.execPath, ["compatible.ts", "Hi"], { cwd: exampleDirectory, env }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain("MODEL_BASE_URL");
    expect(fixture.requests).toHaveLength(0);
  });
});
