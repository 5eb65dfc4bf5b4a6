// A persistent conversation with a model on any OpenAI-compatible Chat Completions server
// (vLLM, Ollama, LM Studio, llama.cpp, OpenAI, gateways): run it twice and the second process
// continues the Session the first one saved.
//
//   export MODEL_BASE_URL=https://api.example.com/v1 MODEL_ID=your-model MODEL_API_KEY=...
//   node compatible.ts "Remember our project is Cedar."
//   node compatible.ts "What is our project called?"
//
// SESSION_DIRECTORY chooses where Sessions are saved (default ./.castellan-sessions) and
// SESSION_ID which one to continue (default "compatible"). The key is read from the
// environment and never printed or saved.

import { pathToFileURL } from "node:url";
import { defineAgent } from "@castellan/harness";
import { openaiCompatible } from "@castellan/models/openai-compatible";
import { createFileSessionStore, openSession } from "@castellan/node-runner";

function required(name: string): string {
  const value = process.env[name]?.trim();
  if (!value) {
    console.error(`Set ${name}: MODEL_BASE_URL (e.g. https://api.example.com/v1), MODEL_ID and MODEL_API_KEY.`);
    process.exit(2);
  }
  return value;
}

const model = openaiCompatible({
  baseURL: required("MODEL_BASE_URL"),
  apiKey: required("MODEL_API_KEY"),
  model: required("MODEL_ID"),
});

export const Assistant = defineAgent("example.compatible", {
  model,
  instructions: `You are a helpful assistant answering with ${model.specifier}. Keep replies short.`,
});

const message = process.argv.slice(2).join(" ").trim() || "Hello!";
const directory = pathToFileURL(`${process.env.SESSION_DIRECTORY ?? ".castellan-sessions"}/`);
const stop = new AbortController();
process.once("SIGINT", () => stop.abort());

const session = await openSession({
  agent: Assistant,
  id: process.env.SESSION_ID ?? "compatible",
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
  // Model errors say what failed (a refused key, a rate limit, …) and never contain the key.
  console.error(`\n${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await session.close();
}
