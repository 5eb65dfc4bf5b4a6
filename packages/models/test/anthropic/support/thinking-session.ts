// One process of the restart test: opens the file-store Session "thinking" on the Anthropic
// binding (extended thinking on), runs one message and prints the answer. The test runs it
// twice, as two processes, against its fixture server.
//
//   FIXTURE_URL=http://127.0.0.1:<port> SESSION_DIRECTORY=<dir> node thinking-session.ts "message"
import { pathToFileURL } from "node:url";
import { defineAgent } from "@castellan/harness";
import { anthropic } from "@castellan/models/anthropic";
import { runOneTurn } from "../../support/session-child.ts";

const baseURL = process.env.FIXTURE_URL;
const directory = process.env.SESSION_DIRECTORY;
if (!baseURL || !directory) throw new Error("FIXTURE_URL and SESSION_DIRECTORY are required");

const model = anthropic({
  apiKey: process.env.FAKE_ANTHROPIC_KEY ?? "",
  model: "claude-test-1",
  baseURL,
  thinking: { budgetTokens: 2_048 },
});
const agent = defineAgent("test.anthropic-thinking", { model, instructions: "Think, then answer." });
await runOneTurn(agent, "thinking", pathToFileURL(`${directory}/`), process.argv.slice(2).join(" "));
