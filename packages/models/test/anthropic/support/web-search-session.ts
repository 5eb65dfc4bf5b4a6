// One process of the web search restart test: opens the file-store Session "search" on the
// Anthropic binding with the hosted `web_search` tool and a read-only `read_searches` tool that
// reports `ctx.hostedToolCalls("web_search")`. With MODE=open it only opens and closes the
// Session; otherwise it runs one message. It prints one JSON line of what it saw.
//
//   FIXTURE_URL=http://127.0.0.1:<port> SESSION_DIRECTORY=<dir> MODE=open|run node web-search-session.ts "message"
import { defineAgent, defineTool, hostTool, type RunEvent } from "@castellan/harness";
import { anthropic } from "@castellan/models/anthropic";
import { createFileSessionStore, createNodeRunner } from "@castellan/node-runner";

const baseURL = process.env.FIXTURE_URL;
const directory = process.env.SESSION_DIRECTORY;
if (!baseURL || !directory) throw new Error("FIXTURE_URL and SESSION_DIRECTORY are required");

const model = anthropic({
  apiKey: process.env.FAKE_ANTHROPIC_KEY ?? "",
  model: "claude-test-1",
  baseURL,
  maxRetries: 0,
});
const readSearches = defineTool({
  name: "read_searches",
  description: "Report the web searches of this Session",
  readOnly: true,
  execute: (_input, ctx) => JSON.stringify(ctx.hostedToolCalls("web_search")),
});
const agent = defineAgent("test.anthropic-search", { model, tools: [hostTool("web_search"), readSearches] });
const runner = await createNodeRunner({
  agent,
  permissions: "full-access",
  plugins: [
    {
      name: "search",
      apply: (host) => {
        host.registerHostedTool({ name: "web_search", hosted: { kind: "web-search", maxUses: 3 } });
        host.registerSessionStore(createFileSessionStore({ directory }));
      },
    },
  ],
});
try {
  const session = await runner.createSession({ id: "search" });
  if (process.env.MODE === "open") {
    process.stdout.write(`${JSON.stringify({ opened: session.id })}\n`);
  } else {
    const events: RunEvent[] = [];
    const run = session.run(process.argv.slice(2).join(" "));
    for await (const event of run) events.push(event);
    const result = await run.result;
    const toolEnd = events.find((event) => event.kind === "tool-end");
    process.stdout.write(
      `${JSON.stringify({
        text: result.text,
        hosted: events.filter((event) => event.kind.startsWith("hosted-tool")),
        toolResult: toolEnd?.kind === "tool-end" ? toolEnd.result : null,
        usage: session.usage().total,
      })}\n`,
    );
  }
} finally {
  await runner.close();
}
