// State keys under `castellan.` belong to Castellan's own capabilities: an application cannot
// declare one, the host cannot set one, and another tool cannot write one; the owning built-in
// capability's tools write it through the ordinary batch commit, so the write is saved,
// replayed on reopen and shown in stateWrites.
import { DeclarationError, defineAgent, defineCapability, defineTool, reservedStateField } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createFileSessionStore, createNodeRunner } from "../src/index.js";
import { drain, plugin, tempDirPerTest, textOf } from "./support/index.ts";

const temp = tempDirPerTest("castellan-reserved-");

function builtin() {
  const write = defineTool({
    name: "builtin_write",
    description: "Writes the reserved key",
    execute: (_input, ctx) => {
      ctx.setState({ "castellan.test.items": ["one"] });
      return "written";
    },
  });
  return defineCapability({
    name: "builtin",
    tools: [write],
    [reservedStateField]: { "castellan.test.items": [] },
  } as never);
}

describe("reserved state keys", () => {
  it("refuse an application's declaration", () => {
    expect(() => defineAgent("test.r", { model: scriptedModel([]), state: { "castellan.mine": 1 } })).toThrow(
      DeclarationError,
    );
    expect(() => defineCapability({ name: "app", state: { "castellan.mine": 1 } })).toThrow(
      /reserved "castellan\." space/,
    );
    expect(() => defineCapability({ name: "app", [reservedStateField]: { plain: 1 } } as never)).toThrow(
      DeclarationError,
    );
  });

  it("are written by the owning capability's tools only, saved, replayed and shown; the host and other tools are refused", async () => {
    const other = defineTool({
      name: "other_write",
      description: "Tries the reserved key",
      execute: (_input, ctx) => {
        ctx.setState({ "castellan.test.items": ["forged"] });
        return "forged";
      },
    });
    const steps = [
      { toolCalls: [{ name: "builtin_write", input: {} }] },
      { toolCalls: [{ name: "other_write", input: {} }] },
      { text: "done" },
    ];
    const store = () =>
      plugin("test.store", (host) => host.registerSessionStore(createFileSessionStore({ directory: temp.path })));
    const agent = defineAgent("test.reserved", {
      model: scriptedModel(steps),
      tools: [other],
      capabilities: [builtin()],
    });
    const runner = await createNodeRunner({ agent, permissions: "full-access", plugins: [store()] });
    try {
      const session = await runner.createSession({ id: "r1" });
      const { events } = await drain(session.run("go"));
      const ends = events.flatMap((event) => (event.kind === "tool-end" ? [event.result] : []));
      expect(ends[0]?.isError).toBe(false);
      expect(ends[1]?.isError).toBe(true);
      expect(textOf(ends[1])).toContain("state_key_reserved");
      expect(session.inspect().state["castellan.test.items"]).toEqual(["one"]);
      expect(session.inspect().stateWrites.map((write) => write.changes)).toEqual([
        { "castellan.test.items": ["one"] },
      ]);
      await expect(session.setState("castellan.test.items", [])).rejects.toMatchObject({ code: "state_key_reserved" });
      await expect(session.setState("castellan.undeclared", 1)).rejects.toMatchObject({ code: "state_key_reserved" });
      await session.close();
    } finally {
      await runner.close();
    }
    const again = await createNodeRunner({
      agent: defineAgent("test.reserved", { model: scriptedModel([]), tools: [other], capabilities: [builtin()] }),
      plugins: [store()],
    });
    try {
      const reopened = await again.createSession({ id: "r1" });
      expect(reopened.inspect().state["castellan.test.items"]).toEqual(["one"]);
      await reopened.close();
    } finally {
      await again.close();
    }
  });
});
