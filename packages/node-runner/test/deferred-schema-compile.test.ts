// A tool schema made only of keywords ajv's compile cannot refuse is compiled on the tool's
// first call: opening its Session loads no ajv, and a call validates exactly as an eagerly
// compiled schema does. Any other schema (a $ref, a pattern, nullable, an empty enum, an
// unknown keyword) is compiled at open, as before.
import { execFile } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { defineAgent, defineTool, type JsonValue } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { engineOptions } from "../../../scripts/meta-validator.ts";
import { openSession } from "../src/index.js";
import { compilesLater } from "../src/kernel/tools/plain-schema.js";
import { drain, textOf, toolMessages } from "./support/index.ts";

const plain: Record<string, object> = {
  "an object of scalars": {
    type: "object",
    properties: { q: { type: "string", minLength: 1 }, n: { type: "integer", minimum: 0 } },
    required: ["q"],
    additionalProperties: false,
  },
  "nested arrays and unions": {
    type: "object",
    properties: {
      items: { type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] }, uniqueItems: true },
      pair: { type: "array", items: [{ type: "string" }, { const: 1 }], additionalItems: false },
      kind: { enum: ["a", "b", null] },
    },
  },
  "conditionals and dependencies": {
    type: "object",
    properties: { a: { type: "boolean" } },
    if: { properties: { a: { const: true } } },
    // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword.
    then: { required: ["b"] },
    else: true,
    dependencies: { a: ["c"], d: { required: ["e"] } },
    propertyNames: { maxLength: 8 },
  },
};

const compiledAtOpen: Record<string, object> = {
  "a $ref": { type: "object", definitions: { s: { type: "string" } }, properties: { q: { $ref: "#/definitions/s" } } },
  "a pattern": { type: "object", properties: { q: { type: "string", pattern: "^a" } } },
  patternProperties: { type: "object", patternProperties: { "^x": { type: "string" } } },
  nullable: { type: "object", properties: { q: { nullable: true } } },
  "an empty enum": { type: "object", properties: { q: { enum: [] } } },
  "an unknown keyword": { type: "object", "x-extension": 1 },
  "an $id": { $id: "https://example.invalid/s", type: "object" },
  "a $schema": { $schema: "http://json-schema.org/draft-07/schema#", type: "object" },
};

describe("which schemas compile on first use", () => {
  for (const [name, schema] of Object.entries(plain)) {
    it(`${name}: later, and ajv compiles it`, () => {
      expect(compilesLater(schema)).toBe(true);
      expect(() => new Ajv(engineOptions).compile(schema)).not.toThrow();
    });
  }
  for (const [name, schema] of Object.entries(compiledAtOpen)) {
    it(`with ${name}: at open`, () => {
      expect(compilesLater(schema)).toBe(false);
    });
  }

  it("a schema nested deeper than 64 levels: at open", () => {
    let schema: object = { type: "string" };
    for (let depth = 0; depth < 70; depth++) schema = { type: "array", items: schema };
    expect(compilesLater(schema)).toBe(false);
  });
});

describe("a tool whose schema compiles on first use", () => {
  it("validates its calls as a schema compiled at open does", async () => {
    const properties = { path: { type: "string" }, count: { type: "integer", minimum: 1 } };
    const seen: JsonValue[] = [];
    const tool = (name: string, extra: object) =>
      defineTool({
        name,
        description: name,
        readOnly: true,
        inputSchema: { type: "object", properties: { ...properties, ...extra }, required: ["path"] } as never,
        execute: (input: JsonValue) => {
          seen.push(input);
          return "ok";
        },
      });
    // The same schema, but a pattern on a property no call sends makes this one compile at open.
    const tools = [tool("later", {}), tool("eager", { unused: { type: "string", pattern: "^x" } })];
    const bad = { count: 0 };
    const good = { path: "a", count: 2 };
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "later", input: bad },
          { name: "eager", input: bad },
          { name: "later", input: good },
        ],
      },
      { text: "done" },
    ]);
    const session = await openSession({ agent: defineAgent("deferred", { model, tools }) });
    const { error } = await drain(session.run("go"));
    await session.close();
    expect(error).toBeUndefined();
    const results = toolMessages(model.requests[1]?.messages);
    expect(results.map((result) => result.isError)).toEqual([true, true, false]);
    expect(textOf(results[0])).toContain("input must have required property 'path'");
    expect(textOf(results[0])).toContain("input/count must be >= 1");
    expect(textOf(results[0]).replace('"later"', '"eager"')).toBe(textOf(results[1]));
    expect(seen).toEqual([good]);
  });

  it("opens its Session without loading ajv; a schema compiled at open loads it", async () => {
    const plainTool = JSON.stringify({ type: "object", properties: { q: { type: "string" } } });
    const refTool = JSON.stringify({
      type: "object",
      definitions: { s: {} },
      properties: { q: { $ref: "#/definitions/s" } },
    });
    expect(await ajvLoadedOpening(plainTool)).toBe(false);
    expect(await ajvLoadedOpening(refTool)).toBe(true);
  });

  it("has the engine loaded by its first Run's model request, before any call", async () => {
    const plainTool = JSON.stringify({ type: "object", properties: { q: { type: "string" } } });
    expect(await ajvLoadedOpening(plainTool, "await session.run('hello').result;")).toBe(true);
  });
});

const run = promisify(execFile);
const root = pathToFileURL(fileURLToPath(new URL("../dist/index.js", import.meta.url))).href;
const offline = import.meta.resolve("@castellan/models/offline");

/**
 * Whether a child process that opens a Session with one tool of `schema`, runs `then`, and
 * closes it loaded the ajv chunk.
 */
async function ajvLoadedOpening(schema: string, then = ""): Promise<boolean> {
  const script = `
    import { registerHooks } from "node:module";
    const seen = [];
    registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });
    const { openSession } = await import(${JSON.stringify(root)});
    const { defineAgent, defineTool } = await import("@castellan/harness");
    const { offline } = await import(${JSON.stringify(offline)});
    const look = defineTool({ name: "look", description: "Look", readOnly: true, inputSchema: ${schema}, execute: () => "seen" });
    const session = await openSession({ agent: defineAgent("tools", { model: offline(), tools: [look] }) });
    ${then}
    await session.close();
    process.stdout.write(JSON.stringify(seen.some((url) => /\\/chunks\\/ajv-[^/]*\\.js$/.test(url))));`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { timeout: 60_000 });
  return JSON.parse(stdout) as boolean;
}
