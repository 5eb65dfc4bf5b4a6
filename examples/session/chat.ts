// A persistent conversation on the offline model: run it twice and the second process
// continues the Session the first one saved.
//
//   node chat.ts "Remember our project is Cedar."
//   node chat.ts "What is our project called?"
//
// SESSION_DIRECTORY chooses where Sessions are saved (default ./.castellan-sessions) and
// SESSION_ID which one to continue (default "chat").

import { pathToFileURL } from "node:url";
import { defineAgent } from "@castellan/harness";
import { offline } from "@castellan/models/offline";
import { createFileSessionStore, openSession } from "@castellan/node-runner";

const model = offline();

export const Assistant = defineAgent("example.session", {
  model,
  instructions: `You are a helpful assistant answering with ${model.specifier}. Keep replies short.`,
});

const message = process.argv.slice(2).join(" ").trim() || "Hello!";
const directory = pathToFileURL(`${process.env.SESSION_DIRECTORY ?? ".castellan-sessions"}/`);
const stop = new AbortController();
process.once("SIGINT", () => stop.abort());

const session = await openSession({
  agent: Assistant,
  id: process.env.SESSION_ID ?? "chat",
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
