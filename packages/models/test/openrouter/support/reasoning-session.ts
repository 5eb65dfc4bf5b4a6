// One process of the OpenRouter restart test: opens the file-store Session "reasoning" on the
// openrouter binding with a forecast tool, runs one message and prints the answer. The test
// runs it twice, as two processes, against its fixture server.
//
//   FIXTURE_URL=http://127.0.0.1:<port>/api/v1 SESSION_DIRECTORY=<dir> node reasoning-session.ts "message"
import { pathToFileURL } from "node:url";
import { defineAgent, defineTool } from "@castellan/harness";
import { openrouter } from "@castellan/models/openrouter";
import { runOneTurn } from "../../support/session-child.ts";

const baseURL = process.env.FIXTURE_URL;
const directory = process.env.SESSION_DIRECTORY;
if (!baseURL || !directory) throw new Error("FIXTURE_URL and SESSION_DIRECTORY are required");

const model = openrouter({ apiKey: process.env.FAKE_OPENROUTER_KEY ?? "", model: "acme/vision-pro", baseURL });
const forecast = defineTool({
  name: "forecast",
  description: "The weather forecast for a city.",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  readOnly: true,
  execute: (input: { city: string }) => `Rain in ${input.city}, 12°C.`,
});
const agent = defineAgent("test.openrouter-reasoning", { model, instructions: "Use tools.", tools: [forecast] });
await model.check();
await runOneTurn(agent, "reasoning", pathToFileURL(`${directory}/`), process.argv.slice(2).join(" "));
