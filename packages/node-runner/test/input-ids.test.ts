// Input identities: saved with the input, shown on run-start / run-input, and refused when the
// Session already has them (in history or queued) before anything is saved.
import { defineAgent, defineTool, type RunEvent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { createFileSessionStore, createNodeRunner } from "../src/index.js";
import { fileRecords, plugin, tempDirPerTest } from "./support/index.ts";

const temp = tempDirPerTest("castellan-input-ids-");

describe("input identities", () => {
  it("are saved and shown for run and join input, and a duplicate is refused with nothing saved", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const hold = defineTool({
      name: "hold",
      description: "Waits",
      readOnly: true,
      execute: async () => {
        await gate;
        return "held";
      },
    });
    const store = createFileSessionStore({ directory: temp.path });
    const agent = defineAgent("test.input-ids", {
      model: scriptedModel([{ toolCalls: [{ name: "hold", input: {} }] }, { text: "done" }, { text: "second" }]),
      tools: [hold],
    });
    const runner = await createNodeRunner({
      agent,
      plugins: [plugin("test.store", (host) => host.registerSessionStore(store))],
    });
    try {
      const session = await runner.createSession({ id: "ids" });
      const run = session.run("first", { inputId: "a" });
      const events: RunEvent[] = [];
      const collected = (async () => {
        for await (const event of run) events.push(event);
      })();
      const joined = run.join("joined", { inputId: "b" });
      await expect(run.join("again", { inputId: "b" })).rejects.toMatchObject({ code: "input_duplicate" });
      await expect(run.join("again", { inputId: "a" })).rejects.toMatchObject({ code: "input_duplicate" });
      await expect(run.join("bad", { inputId: "" })).rejects.toMatchObject({ code: "invalid_options" });
      release();
      await joined;
      await collected;
      expect(events.find((event) => event.kind === "run-start")).toMatchObject({ inputId: "a" });
      expect(events.find((event) => event.kind === "run-input")).toMatchObject({ inputId: "b" });
      const saved = await fileRecords(temp.path, "ids");
      expect(() => session.run("dup", { inputId: "b" })).toThrow(expect.objectContaining({ code: "input_duplicate" }));
      expect(() => session.run("long", { inputId: "x".repeat(257) })).toThrow(
        expect.objectContaining({ code: "invalid_options" }),
      );
      expect(await fileRecords(temp.path, "ids")).toEqual(saved);
      await session.run("fresh", { inputId: "c" }).result;
      await session.close();
      // Reopened, the saved identities still refuse a duplicate.
      const reopened = await runner.createSession({ id: "ids" });
      expect(() => reopened.run("again", { inputId: "c" })).toThrow(
        expect.objectContaining({ code: "input_duplicate" }),
      );
      await reopened.close();
    } finally {
      await runner.close();
    }
  });
});
