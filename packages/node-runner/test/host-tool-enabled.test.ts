// A hostTool reference and the tool the host registers for it each have `enabled`: the model
// sees the tool only in the turns both (and the capability holding the reference) allow.
import { defineAgent, defineCapability, defineTool, type Enabled, hostTool } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { openOnOwnRunner, plugin } from "./support/index.ts";

function lookupTool(enabled?: Enabled) {
  return defineTool({
    name: "lookup",
    description: "Look something up",
    readOnly: true,
    ...(enabled === undefined ? {} : { enabled }),
    execute: () => "found",
  });
}

/** The tool names the model was offered in each of three turns, and how many times lookup ran. */
async function offeredPerTurn(reference: Enabled | undefined, registered: Enabled | undefined, capability = true) {
  const model = scriptedModel([
    { toolCalls: [{ name: "lookup", input: {} }] },
    { toolCalls: [{ name: "lookup", input: {} }] },
    { text: "done" },
  ]);
  const ref = hostTool("lookup", reference === undefined ? {} : { enabled: reference });
  const agent = defineAgent("test.host-enabled", {
    model,
    capabilities: [defineCapability({ name: "catalog", tools: [ref], enabled: capability })],
  });
  const { session, close } = await openOnOwnRunner({
    agent,
    permissions: "ask-on-write",
    plugins: [plugin("tools", (host) => host.registerTool(lookupTool(registered)))],
  });
  try {
    await session.run("look").result;
    const results = model.requests.slice(1).map((request) => request.messages.at(-1));
    return {
      offered: model.requests.map((request) => request.tools.map((tool) => tool.name)),
      results: results.map((message) => (message?.role === "tool" ? message.isError : undefined)),
      inspected: session.inspect().turns.map((turn) => turn.tools.map((tool) => tool.name)),
    };
  } finally {
    await close();
  }
}

describe("a hostTool reference and its registered tool", () => {
  it("is visible when neither sets enabled", async () => {
    const { offered, results } = await offeredPerTurn(undefined, undefined);
    expect(offered).toEqual([["lookup"], ["lookup"], ["lookup"]]);
    expect(results).toEqual([false, false]);
  });

  it("follows the registered tool's own enabled function", async () => {
    const { offered, results, inspected } = await offeredPerTurn(undefined, (ctx) => ctx.turn === 1);
    expect(offered).toEqual([["lookup"], [], []]);
    expect(inspected).toEqual([["lookup"], [], []]);
    // The second call names a tool hidden that turn: it settles as an error without running.
    expect(results).toEqual([false, true]);
  });

  it("is hidden when the reference says no, whatever the registered tool says", async () => {
    const { offered } = await offeredPerTurn(false, true);
    expect(offered).toEqual([[], [], []]);
  });

  it("is hidden when the registered tool says no, whatever the reference says", async () => {
    const { offered } = await offeredPerTurn(true, false);
    expect(offered).toEqual([[], [], []]);
  });

  it("is visible only in turns both functions allow", async () => {
    const { offered } = await offeredPerTurn(
      (ctx) => ctx.turn >= 2,
      (ctx) => ctx.turn <= 2,
    );
    expect(offered).toEqual([[], ["lookup"], []]);
  });

  it("is hidden with its capability", async () => {
    const { offered } = await offeredPerTurn(true, true, false);
    expect(offered).toEqual([[], [], []]);
  });
});
