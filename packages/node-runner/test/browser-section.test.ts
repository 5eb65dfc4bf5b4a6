// The browser instruction section and its builtinPrompts override, the tools' declarations,
// and option checks.
import { defineAgent, defineCapability } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import {
  browserSectionName,
  browserSectionText,
  browserToolNames,
  createBrowserSessionTools,
  createNodeRunner,
  createOriginAuthority,
} from "../src/index.js";
import { stubFactory } from "./browser-support.ts";
import { cleanupAfterEach, drain } from "./support/index.ts";

const cleanups = cleanupAfterEach();

async function systemWith(builtinPrompts?: { browser?: string }) {
  const owner = createBrowserSessionTools({ origins: createOriginAuthority(), sessionFactory: stubFactory() });
  cleanups.push(() => owner.close());
  const capability = defineCapability({
    name: "browser",
    tools: owner.tools,
    instructions: [{ name: browserSectionName, text: browserSectionText }],
  });
  const model = scriptedModel([{ text: "ok" }]);
  const runner = await createNodeRunner({
    agent: defineAgent("test.browser-section", { model, capabilities: [capability] }),
    ...(builtinPrompts ? { builtinPrompts } : {}),
  });
  cleanups.push(() => runner.close());
  const session = cleanups.closeLater(await runner.createSession());
  await drain(session.run("hi"));
  const request = model.requests[0];
  return {
    system: request?.system ?? "",
    tools: request?.tools.map((tool) => tool.name) ?? [],
    section: session.inspect().current.sections.find((section) => section.name === "browser")?.text,
  };
}

describe("the browser section", () => {
  it("states how to use the tools, in our words", async () => {
    const { system, tools } = await systemWith();
    expect(system).toContain("## browser");
    for (const phrase of [
      "exactly as shown",
      "pass the ref the latest observation gives",
      "stale: call browser_snapshot with no arguments",
      "browser_hover the row",
      "pass observationId and offset unchanged",
      "pass query alone",
      "newTab: true",
      "browser_switch_tab back",
      "only for native <select>",
      "call browser_snapshot before searching",
    ]) {
      expect(system).toContain(phrase);
    }
    expect(tools).toEqual([...browserToolNames]);
  });

  it("builtinPrompts.browser replaces the text, and an empty string omits the section; the tools stay", async () => {
    const custom = await systemWith({ browser: "Custom browser rules." });
    expect(custom.system).toContain("## browser\n\nCustom browser rules.");
    expect(custom.system).not.toContain("browser_hover the row");
    expect(custom.section).toBe("Custom browser rules.");
    expect(custom.tools).toEqual([...browserToolNames]);

    const omitted = await systemWith({ browser: "" });
    expect(omitted.system).not.toContain("## browser");
    expect(omitted.tools).toEqual([...browserToolNames]);

    const agent = defineAgent("test.browser-prompts", { model: scriptedModel([]) });
    await expect(createNodeRunner({ agent, builtinPrompts: { browser: 1 } as never })).rejects.toMatchObject({
      code: "invalid_options",
    });
    await expect(createNodeRunner({ agent, builtinPrompts: { nope: "x" } as never })).rejects.toMatchObject({
      code: "invalid_options",
      message: expect.stringContaining("workspace, browser"),
    });
  });
});

describe("createBrowserSessionTools", () => {
  const base = { origins: createOriginAuthority(), sessionFactory: stubFactory() };

  it("declares the ten, none read-only, every schema closed to unknown fields", () => {
    const owner = createBrowserSessionTools(base);
    cleanups.push(() => owner.close());
    expect(owner.tools.map((tool) => tool.name)).toEqual([...browserToolNames]);
    for (const tool of owner.tools) {
      expect(tool.readOnly).toBe(false);
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(typeof tool.admit).toBe("function");
    }
  });

  it.each([
    { maxObservationBytes: 1_023 },
    { maxObservationBytes: 1_048_577 },
    { maxObservationBytes: 2_048.5 },
    { maxImageBytes: 1_023 },
    { maxImageBytes: 16_777_217 },
    { captureWorkspaceRoot: "http://example.com/" },
    { origins: {} },
    { sessionFactory: {} },
    { sessionFactory: { mode: "selected", open: async () => ({}) } },
  ])("refuses %j with invalid_options", (override) => {
    expect(() => createBrowserSessionTools({ ...base, ...(override as object) } as never)).toThrow(
      expect.objectContaining({ code: "invalid_options" }),
    );
  });

  it("accepts both limits' bounds", () => {
    for (const limits of [
      { maxObservationBytes: 1_024, maxImageBytes: 1_024 },
      { maxObservationBytes: 1_048_576, maxImageBytes: 16_777_216 },
    ]) {
      const owner = createBrowserSessionTools({ ...base, ...limits });
      cleanups.push(() => owner.close());
    }
  });
});
