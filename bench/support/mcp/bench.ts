// The MCP bench: server-everything over stdio, measured side by side with a bare SDK client in
// one run. Calls: N sequential `echo` calls through a Session's tool path (each from its
// tool-start to its tool-end event: admission, permission, the saved intent, the call, the
// saved receipt) beside the same calls on a bare `Client` over `StdioClientTransport`. Opens:
// a Session open (spawn, initialize, the listed catalog, the Program) beside a bare spawn,
// initialize and listTools, alternating.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { defineAgent, type ModelBinding, type ModelRequest, type ModelStreamEvent } from "@castellan/harness";
import { createNodeRunner, mcp } from "@castellan/node-runner";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type Percentiles, percentiles } from "../stats.ts";

const entry = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);

export interface McpBenchReport {
  readonly calls: number;
  readonly opens: number;
  readonly call: { readonly castellan: Percentiles; readonly tool: Percentiles; readonly bare: Percentiles };
  readonly open: { readonly castellan: Percentiles; readonly bare: Percentiles };
}

async function bareClient(): Promise<{ client: Client; openMs: number }> {
  const started = performance.now();
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [entry, "stdio"], stderr: "ignore" }),
  );
  await client.listTools();
  return { client, openMs: performance.now() - started };
}

async function bareCalls(count: number): Promise<number[]> {
  const { client } = await bareClient();
  const times: number[] = [];
  try {
    for (let index = 0; index < count; index++) {
      const started = performance.now();
      await client.callTool({ name: "echo", arguments: { message: `m${index}` } });
      times.push(performance.now() - started);
    }
  } finally {
    await client.close();
  }
  return times;
}

/**
 * An agent whose model answers at once, reading only how many messages the request holds (no
 * copy of the conversation): an `echo` call for each of the first `calls` turns, then text.
 */
function castellanAgent(calls: number) {
  const usage = { inputTokens: 1, outputTokens: 1 } as const;
  const model: ModelBinding = {
    specifier: "bench/instant-mcp",
    contextWindow: 1_000_000,
    async *stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
      const turn = (request.messages.length + 1) / 2;
      if (turn <= calls) {
        yield {
          type: "tool-call",
          toolCall: { id: `call_${turn}`, name: "mcp__everything__echo", input: { message: `m${turn}` } },
        };
        yield { type: "usage", usage };
        yield { type: "finish", stopReason: "tool-calls" };
      } else {
        yield { type: "text-delta", text: "done" };
        yield { type: "usage", usage };
        yield { type: "finish", stopReason: "end" };
      }
    },
  };
  return defineAgent("bench.mcp", {
    model,
    capabilities: [
      mcp({ serverName: "everything", transport: "stdio", command: process.execPath, args: [entry, "stdio"] }),
    ],
  });
}

async function castellanCalls(count: number): Promise<number[]> {
  const runner = await createNodeRunner({
    agent: castellanAgent(count),
    permissions: "full-access",
    limits: { maxTurns: count + 5 },
  });
  const times: number[] = [];
  try {
    const session = await runner.createSession();
    const starts = new Map<string, number>();
    for await (const event of session.run("echo")) {
      if (event.kind === "tool-start") starts.set(event.toolCallId, performance.now());
      if (event.kind === "tool-end") {
        if (event.result.isError) throw new Error(`echo failed: ${JSON.stringify(event.result)}`);
        times.push(performance.now() - (starts.get(event.toolCallId) ?? Number.NaN));
      }
    }
    await session.close();
  } finally {
    await runner.close();
  }
  return times;
}

/** The adapter alone: the Castellan tool mcp() made, its execute called directly on a connection the capability's resource opened. */
async function toolCalls(count: number): Promise<number[]> {
  const capability = mcp({
    serverName: "everything",
    transport: "stdio",
    command: process.execPath,
    args: [entry, "stdio"],
  });
  const request = capability.resources[0];
  if (!request) throw new Error("mcp() declares no resource.");
  const lease = await request.binding.acquire(
    {},
    { signal: new AbortController().signal, sessionId: "bench", params: {} },
  );
  const times: number[] = [];
  try {
    const echo = lease.tools?.find((tool) => tool.name === "mcp__everything__echo");
    if (!echo) throw new Error("no echo tool");
    const ctx = {
      sessionId: "bench",
      runId: "r",
      toolCallId: "c",
      toolName: echo.name,
      agent: { id: "bench" },
      signal: new AbortController().signal,
    };
    for (let index = 0; index < count; index++) {
      const started = performance.now();
      await echo.execute({ message: `m${index}` }, ctx as never);
      times.push(performance.now() - started);
    }
  } finally {
    await lease.close();
  }
  return times;
}

async function opens(count: number): Promise<{ castellan: number[]; bare: number[] }> {
  const castellan: number[] = [];
  const bare: number[] = [];
  const runner = await createNodeRunner({ agent: castellanAgent(0) });
  try {
    for (let round = 0; round < count; round++) {
      const started = performance.now();
      const session = await runner.createSession();
      castellan.push(performance.now() - started);
      await session.close();
      const { client, openMs } = await bareClient();
      bare.push(openMs);
      await client.close();
    }
  } finally {
    await runner.close();
  }
  return { castellan, bare };
}

/** Runs both measurements; `calls` echo calls per side, `opens` open rounds. */
export async function runMcpBench(options: {
  readonly calls: number;
  readonly opens: number;
  readonly progress?: (message: string) => void;
}): Promise<McpBenchReport> {
  const bare = await bareCalls(options.calls);
  options.progress?.("bare calls done");
  const tool = await toolCalls(options.calls);
  options.progress?.("tool calls done");
  const castellan = await castellanCalls(options.calls);
  options.progress?.("Session calls done");
  const opened = await opens(options.opens);
  options.progress?.("opens done");
  return {
    calls: options.calls,
    opens: options.opens,
    call: { castellan: percentiles(castellan), tool: percentiles(tool), bare: percentiles(bare) },
    open: { castellan: percentiles(opened.castellan), bare: percentiles(opened.bare) },
  };
}

/** The targets: per call within 1.25x of the bare client, open within 1.2x. */
export const mcpTargets = { call: 1.25, open: 1.2 } as const;

export function formatMcpBenchReport(report: McpBenchReport): string {
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  const line = (label: string, castellan: Percentiles, bare: Percentiles, target: number) => {
    const ratio = castellan.p50 / bare.p50;
    return [
      `${label}`,
      `  Castellan  p50 ${ms(castellan.p50).padStart(10)}  p99 ${ms(castellan.p99).padStart(10)}`,
      `  bare SDK   p50 ${ms(bare.p50).padStart(10)}  p99 ${ms(bare.p99).padStart(10)}`,
      `  p50 ratio ${ratio.toFixed(2)}x (<= ${target}) ${ratio <= target ? "PASS" : "MISS"}; p99 ratio ${(castellan.p99 / bare.p99).toFixed(2)}x`,
    ].join("\n");
  };
  return `${[
    `mcp bench: server-everything over stdio`,
    line(
      `echo, ${report.calls} sequential calls, through the Session's tool path`,
      report.call.castellan,
      report.call.bare,
      mcpTargets.call,
    ),
    line(
      `echo, ${report.calls} sequential calls, the mcp() tool alone`,
      report.call.tool,
      report.call.bare,
      mcpTargets.call,
    ),
    line(`open, ${report.opens} rounds`, report.open.castellan, report.open.bare, mcpTargets.open),
  ].join("\n\n")}\n`;
}
