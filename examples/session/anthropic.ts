// A persistent conversation on Anthropic: the key is checked, the models it can use are
// listed, and the answer streams to the terminal. Run it twice and the second process
// continues the Session the first one saved.
//
//   ANTHROPIC_API_KEY=… ANTHROPIC_MODEL=claude-sonnet-4-6 node anthropic.ts "Remember our project is Cedar."
//   ANTHROPIC_API_KEY=… ANTHROPIC_MODEL=claude-sonnet-4-6 node anthropic.ts "What is our project called?"
//
// ANTHROPIC_BASE_URL points at another endpoint (a proxy, a test server). SESSION_DIRECTORY
// chooses where Sessions are saved (default ./.castellan-sessions) and SESSION_ID which one to
// continue (default "anthropic"). The key is never printed or saved.

import { pathToFileURL } from "node:url";
import { defineAgent, isModelProviderError } from "@castellan/harness";
import { anthropic, listModels, verifyKey } from "@castellan/models/anthropic";
import { createFileSessionStore, openSession } from "@castellan/node-runner";

const apiKey = process.env.ANTHROPIC_API_KEY ?? "";
const modelId = process.env.ANTHROPIC_MODEL ?? "";
const baseURL = process.env.ANTHROPIC_BASE_URL || undefined;
if (!apiKey || !modelId) {
  process.stderr.write("Set ANTHROPIC_API_KEY and ANTHROPIC_MODEL (and optionally ANTHROPIC_BASE_URL).\n");
  process.exit(1);
}

const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
const connection = { apiKey, signal: stop.signal, ...(baseURL ? { baseURL } : {}) };

try {
  await verifyKey(connection);
  const catalog = await listModels(connection);
  const names = catalog.map((entry) => (entry.id === modelId ? `${entry.id} (selected)` : entry.id));
  process.stderr.write(`Key accepted. Models for this key: ${names.join(", ")}\n`);
  if (!catalog.some((entry) => entry.id === modelId)) {
    process.stderr.write(`Note: ${modelId} is not in the catalog; it may be an alias.\n`);
  }
} catch (error) {
  process.stderr.write(
    isModelProviderError(error, "model_auth")
      ? `Anthropic refused the key: ${error.message}\n`
      : `Could not check the key: ${(error as Error).message}\n`,
  );
  process.exit(1);
}

const model = anthropic({ apiKey, model: modelId, ...(baseURL ? { baseURL } : {}) });

export const Assistant = defineAgent("example.anthropic-session", {
  model,
  instructions: `You are a helpful assistant answering with ${model.specifier}. Keep replies short.`,
});

const message = process.argv.slice(2).join(" ").trim() || "Hello!";
const directory = pathToFileURL(`${process.env.SESSION_DIRECTORY ?? ".castellan-sessions"}/`);

const session = await openSession({
  agent: Assistant,
  id: process.env.SESSION_ID ?? "anthropic",
  store: createFileSessionStore({ directory }),
});
try {
  const run = session.run(message, { signal: stop.signal });
  for await (const event of run) {
    if (event.kind === "assistant-text-delta") process.stdout.write(event.text);
  }
  const result = await run.result;
  process.stdout.write(result.text.endsWith("\n") ? "" : "\n");
} catch (error) {
  // The Run failed (e.g. rate-limited or overloaded after retries); the Session keeps what was said.
  process.stderr.write(`\nThe answer failed: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await session.close();
}
