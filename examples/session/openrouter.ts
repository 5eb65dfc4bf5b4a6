// A persistent conversation with a model on OpenRouter: the example reads OpenRouter's public
// model list, picks a model, checks the key, then chats; run it twice and the second process
// continues the Session the first one saved.
//
//   export OPENROUTER_API_KEY=...
//   node openrouter.ts --list                              (every model and its capabilities)
//   node openrouter.ts "Remember our project is Cedar."
//   node openrouter.ts "What is our project called?"
//
// OPENROUTER_MODEL picks the model (default: the first listed that supports tools),
// OPENROUTER_BASE_URL the API root (default https://openrouter.ai/api/v1). SESSION_DIRECTORY
// and SESSION_ID work as in chat.ts (default Session "openrouter"). The key is read from the
// environment and never printed or saved.

import { pathToFileURL } from "node:url";
import { defineAgent } from "@castellan/harness";
import {
  listOpenRouterModels,
  type OpenRouterModel,
  openrouter,
  verifyOpenRouterKey,
} from "@castellan/models/openrouter";
import { createFileSessionStore, openSession } from "@castellan/node-runner";

function describeModel(entry: OpenRouterModel): string {
  const price = entry.pricing
    ? `$${entry.pricing.inputPerMillion} in / $${entry.pricing.outputPerMillion} out per million tokens`
    : "price varies";
  const context = entry.contextLength ? `${entry.contextLength.toLocaleString("en-US")} tokens` : "unknown";
  return `${entry.id} (${entry.name}): context ${context}, tools ${entry.tools ? "yes" : "no"}, images ${entry.imageInput ? "yes" : "no"}, ${price}`;
}

const apiKey = process.env.OPENROUTER_API_KEY?.trim();
if (!apiKey) {
  console.error("Set OPENROUTER_API_KEY (and optionally OPENROUTER_MODEL).");
  process.exit(2);
}
const baseURL = process.env.OPENROUTER_BASE_URL?.trim() || undefined;
const stop = new AbortController();
process.once("SIGINT", () => stop.abort());

try {
  const models = await listOpenRouterModels({ ...(baseURL ? { baseURL } : {}), signal: stop.signal });
  if (process.argv[2] === "--list") {
    for (const entry of models) console.log(describeModel(entry));
    process.exit(0);
  }
  const wanted = process.env.OPENROUTER_MODEL?.trim();
  const entry = wanted
    ? models.find((candidate) => candidate.id === wanted)
    : models.find((candidate) => candidate.tools);
  if (!entry) {
    console.error(
      wanted
        ? `OpenRouter lists no model "${wanted}"; run "node openrouter.ts --list" to see them.`
        : "OpenRouter lists no model that supports tools.",
    );
    process.exit(1);
  }
  console.log(`Model: ${describeModel(entry)}`);
  const key = await verifyOpenRouterKey({ apiKey, ...(baseURL ? { baseURL } : {}), signal: stop.signal });
  const credits = key.limitRemaining === null ? "no credit limit" : `$${key.limitRemaining} of credit left`;
  console.log(`Key accepted: ${credits}.`);

  const model = openrouter({
    apiKey,
    model: entry.id,
    catalogEntry: entry,
    appName: "Castellan session example",
    ...(baseURL ? { baseURL } : {}),
  });
  const Assistant = defineAgent("example.openrouter", {
    model,
    instructions: `You are a helpful assistant answering with ${model.specifier}. Keep replies short.`,
  });
  const message = process.argv.slice(2).join(" ").trim() || "Hello!";
  const directory = pathToFileURL(`${process.env.SESSION_DIRECTORY ?? ".castellan-sessions"}/`);
  const session = await openSession({
    agent: Assistant,
    id: process.env.SESSION_ID ?? "openrouter",
    store: createFileSessionStore({ directory }),
  });
  try {
    const run = session.run(message, { signal: stop.signal });
    for await (const event of run) {
      if (event.kind === "assistant-text-delta") process.stdout.write(event.text);
    }
    const result = await run.result;
    process.stdout.write(result.text.endsWith("\n") ? "" : "\n");
  } finally {
    await session.close();
  }
} catch (error) {
  // Errors say what failed (a refused key, a rate limit, …) and never contain the key.
  console.error(`\n${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
