// A report agent whose progress is durable. Three commands, each its own process:
//
//   node report.ts update    records report updates until the tool disappears (after 3)
//   node report.ts compact   summarizes the older conversation (session.compact())
//   node report.ts summary   a fresh process counts the completed updates from the receipts
//
// REPORT_SESSIONS chooses where the Session is saved (default ./.castellan-sessions).
// The model is scripted, so nothing here needs credentials or a network.

import { defineAgent, defineTool, type ModelRequest, type Usage } from "@castellan/harness";
import { type ScriptedStep, scriptedModel } from "@castellan/models/testing";
import { createFileSessionStore, openSession, type Run } from "@castellan/node-runner";

const goal = 3;

// Progress is kept in durable state: a value the model never wrote itself.
const recordUpdate = defineTool({
  name: "record_update",
  description: "Record one completed report update.",
  enabled: (ctx) => (ctx.state.updates as number) < goal,
  async execute(_input, ctx) {
    ctx.setState((state) => ({ updates: (state.updates as number) + 1 }));
    // Inside the tool, ctx.state already holds the write above; it commits when the batch settles.
    return `Recorded update ${String(ctx.state.updates)}.`;
  },
});

// Reports from the receipts of record_update, so there is no second counter to keep in step.
const reportStatus = defineTool({
  name: "report_status",
  description: "Report how many report updates have completed.",
  readOnly: true,
  async execute(_input, ctx) {
    const receipts = ctx.toolCalls("record_update");
    const completed = receipts.filter((receipt) => receipt.ok);
    const runs = new Set(completed.map((receipt) => receipt.runId)).size;
    const failed = receipts.length - completed.length;
    return `Completed updates (from receipts): ${completed.length}, in ${runs} Run(s); failed attempts: ${failed}.`;
  },
});

// A deterministic stand-in for a real model: every answer is a function of the request.
function answer(request: ModelRequest): ScriptedStep {
  const offered = (name: string) => request.tools.some((tool) => tool.name === name);
  const last = request.messages.at(-1);
  const usage = estimateUsage(request);
  if (request.tools.length === 0 && last?.role === "user") {
    // A compaction request: no tools, and the last user message asks for a summary.
    const recorded = request.messages.filter(
      (message) => message.role === "tool" && message.toolName === "record_update",
    );
    return {
      text: `The user asked for report updates; record_update was called ${recorded.length} time(s) and each call returned a receipt.`,
      usage,
    };
  }
  if (offered("record_update")) return { toolCalls: [{ name: "record_update", input: {} }], usage };
  if (last?.role === "tool") {
    const said = last.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    return last.toolName === "report_status"
      ? { text: said, usage }
      : { text: `record_update is no longer offered, so the report is done. Last result: ${said}`, usage };
  }
  if (offered("report_status")) return { toolCalls: [{ name: "report_status", input: {} }], usage };
  return { text: "There is nothing for me to do.", usage };
}

function estimateUsage(request: ModelRequest): Usage {
  return { inputTokens: Math.ceil(JSON.stringify(request).length / 4), outputTokens: 12 };
}

// Each request takes the next step; no command needs more than a handful.
const model = scriptedModel(
  Array.from({ length: 16 }, () => answer),
  { specifier: "scripted/report" },
);

export const Reporter = defineAgent("example.stateful-report", {
  model,
  state: { updates: 0 },
  instructions: {
    identity: "Record completed report updates, one call at a time, then say what was done.",
    progress: (ctx) => `Report updates so far: ${String(ctx.state.updates)} of ${goal}.`,
  },
  tools: [recordUpdate, reportStatus],
});

const command = process.argv[2];
if (command !== "update" && command !== "compact" && command !== "summary") {
  process.stderr.write("Usage: node report.ts update|compact|summary\n");
  process.exit(2);
}

const stop = new AbortController();
process.once("SIGINT", () => stop.abort());

const session = await openSession({
  agent: Reporter,
  id: "weekly-report",
  store: createFileSessionStore({ directory: process.env.REPORT_SESSIONS ?? ".castellan-sessions" }),
  // The agent has only its own two tools, so it may use them without asking.
  permissions: "full-access",
  signal: stop.signal,
});
try {
  if (command === "update") {
    await follow(session.run("Record the report updates.", { signal: stop.signal }));
    console.log(`Updates recorded: ${String(session.inspect().state.updates)}`);
  } else if (command === "compact") {
    const outcome = await session.compact({ signal: stop.signal });
    if (!outcome) {
      console.log("Nothing to compact.");
    } else {
      console.log(
        `Compacted ${outcome.compactedMessages} message(s) into a summary and kept ${outcome.keptMessages}` +
          ` (about ${outcome.tokensBefore} -> ${outcome.tokensAfter} tokens).`,
      );
    }
  } else {
    await follow(session.run("How many report updates are complete?", { signal: stop.signal }));
    const inspection = session.inspect();
    console.log(`Durable state agrees: updates = ${String(inspection.state.updates)}.`);
    const usage = session.usage();
    const compactions = usage.entries.filter((entry) => entry.purpose === "compaction").length;
    console.log(
      `Model calls saved in this Session: ${usage.total.calls} (${compactions} for compaction),` +
        ` ${usage.total.inputTokens + usage.total.outputTokens} tokens.`,
    );
  }
} finally {
  await session.close();
}

/** Prints what a Run does: tool results, committed state, and its answer. */
async function follow(run: Run): Promise<void> {
  for await (const event of run) {
    if (event.kind === "tool-end") {
      const text = event.result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      console.log(`  ${event.toolName}: ${text}`);
    } else if (event.kind === "state-changed") {
      console.log(`  state (${event.source}): ${JSON.stringify(event.changes)}`);
    } else if (event.kind === "run-interrupted") {
      console.log(`  settled an interrupted Run first: ${event.interruptedRunId}`);
    }
  }
  console.log((await run.result).text);
}
