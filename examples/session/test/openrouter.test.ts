// The OpenRouter example run as OS processes from the workspace against a loopback server
// answering OpenRouter's model list, key check and Chat Completions: it picks the first model
// with tools, checks the key, and the second process continues the first one's Session.
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type HttpFixture,
  sendJson,
  sendSse,
  startHttpFixture,
} from "../../../packages/models/test/support/http-fixture.ts";
import { exec } from "../../test-support/pack.ts";

const exampleDirectory = fileURLToPath(new URL("../", import.meta.url));
const fakeKey = "sk-or-v1-FAKE-0123456789";

const catalog = {
  data: [
    {
      id: "acme/text-lite",
      name: "Acme: Text Lite",
      context_length: 32_768,
      architecture: { input_modalities: ["text"], output_modalities: ["text"] },
      pricing: { prompt: "0.0000001", completion: "0.0000002" },
      supported_parameters: ["max_tokens"],
    },
    {
      id: "acme/vision-pro",
      name: "Acme: Vision Pro",
      context_length: 200_000,
      architecture: { input_modalities: ["text", "image"], output_modalities: ["text"] },
      pricing: { prompt: "0.000003", completion: "0.000015" },
      supported_parameters: ["max_tokens", "tools"],
    },
  ],
};

function answer(text: string) {
  const base = { id: "gen-1", object: "chat.completion.chunk", created: 1_700_000_000, model: "acme/vision-pro" };
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
  sessions = await mkdtemp(join(tmpdir(), "castellan-openrouter-example-"));
  const replies = ["Noted: your project is Cedar.", "Your project is called Cedar."];
  fixture = await startHttpFixture((request, response) => {
    if (request.path === "/api/v1/models") return sendJson(response, 200, catalog);
    if (request.path === "/api/v1/key") {
      if (request.headers.authorization !== `Bearer ${fakeKey}`) {
        return sendJson(response, 401, { error: { code: 401, message: "No auth credentials found" } });
      }
      return sendJson(response, 200, {
        data: { label: "sk-or-v1-FAK...789", limit: null, usage: 0, is_free_tier: false },
      });
    }
    return sendSse(response, answer(replies.shift() ?? "No more."));
  });
});

afterEach(async () => {
  await fixture.close();
  await rm(sessions, { recursive: true, force: true });
});

function node(args: readonly string[], env: Record<string, string> = {}) {
  return exec(process.execPath, ["openrouter.ts", ...args], {
    cwd: exampleDirectory,
    env: {
      ...process.env,
      OPENROUTER_API_KEY: fakeKey,
      OPENROUTER_BASE_URL: `${fixture.url}/api/v1`,
      OPENROUTER_MODEL: "",
      SESSION_DIRECTORY: sessions,
      SESSION_ID: "openrouter-test",
      ...env,
    },
  });
}

const chatRequests = () => fixture.requests.filter((request) => request.path === "/api/v1/chat/completions");

describe("examples/session/openrouter.ts", () => {
  it("picks the first model with tools, checks the key, and continues one Session across two processes", async () => {
    const first = await node(["Remember our project is Cedar."]);
    expect(first.stdout).toContain(
      "Model: acme/vision-pro (Acme: Vision Pro): context 200,000 tokens, tools yes, images yes",
    );
    expect(first.stdout).toContain("Key accepted: no credit limit.");
    expect(first.stdout).toContain("Noted: your project is Cedar.");
    const second = await node(["What is our project called?"], { OPENROUTER_MODEL: "acme/vision-pro" });
    expect(second.stdout).toContain("Your project is called Cedar.");

    const [, continued] = chatRequests();
    const body = continued?.json as { model: string; messages: { role: string; content: unknown }[] };
    expect(body.model).toBe("acme/vision-pro");
    expect(body.messages.slice(1)).toEqual([
      { role: "user", content: "Remember our project is Cedar." },
      { role: "assistant", content: "Noted: your project is Cedar." },
      { role: "user", content: "What is our project called?" },
    ]);
    expect(continued?.headers["x-title"]).toBe("Castellan session example");
    // The catalog entry the example read is handed to the binding: no second catalog read per process.
    expect(fixture.requests.filter((request) => request.path === "/api/v1/models")).toHaveLength(2);

    for (const output of [first.stdout, first.stderr, second.stdout, second.stderr]) {
      expect(output).not.toContain(fakeKey);
    }
    for (const file of await readdir(sessions)) {
      expect(await readFile(join(sessions, file), "utf8")).not.toContain(fakeKey);
    }
  });

  it("lists the models with their capabilities", async () => {
    const { stdout } = await node(["--list"]);
    expect(stdout.trim().split("\n")).toEqual([
      "acme/text-lite (Acme: Text Lite): context 32,768 tokens, tools no, images no, $0.1 in / $0.2 out per million tokens",
      "acme/vision-pro (Acme: Vision Pro): context 200,000 tokens, tools yes, images yes, $3 in / $15 out per million tokens",
    ]);
    expect(chatRequests()).toHaveLength(0);
  });

  it("stops before any model call for an unknown model or a refused key", async () => {
    const unknown = await node(["Hi"], { OPENROUTER_MODEL: "acme/missing" }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(unknown).toMatchObject({ code: 1 });
    expect((unknown as { stderr: string }).stderr).toContain('no model "acme/missing"');
    const refused = await node(["Hi"], { OPENROUTER_API_KEY: "sk-or-v1-WRONG" }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused).toMatchObject({ code: 1 });
    expect((refused as { stderr: string }).stderr).toContain("HTTP 401");
    expect((refused as { stderr: string }).stderr).not.toContain("sk-or-v1-WRONG");
    expect(chatRequests()).toHaveLength(0);
  });
});
