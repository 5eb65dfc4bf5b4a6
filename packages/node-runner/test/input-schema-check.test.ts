// A tool's JSON Schema is checked against its meta-schema when the Session opens, by the
// precompiled draft-07 validator (or ajv's own lookup for a schema naming its `$schema`):
// the refusals and their messages are ajv's, word for word, and the committed validator is
// what the installed ajv generates.
import { readFile } from "node:fs/promises";
import { DeclarationError, defineAgent, defineTool } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { engineOptions, metaValidatorPath, metaValidatorSource } from "../../../scripts/meta-validator.ts";
import { createMemorySessionStore, openSession } from "../src/index.js";

/** Opens a Session whose one tool has `inputSchema: schema`; answers what opening threw. */
async function openWith(schema: object): Promise<unknown> {
  const tool = defineTool({ name: "t", description: "T", inputSchema: schema as never, execute: () => "ok" });
  const agent = defineAgent("schema.check", { model: scriptedModel([]), tools: [tool] });
  try {
    const session = await openSession({ agent, store: createMemorySessionStore() });
    await session.close();
    return undefined;
  } catch (error) {
    return error;
  }
}

/** What ajv's full compile (meta-schema included) throws for `schema`, or undefined. */
function ajvRefusal(schema: object): string | undefined {
  try {
    new Ajv(engineOptions).compile(schema);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const invalid: Record<string, object> = {
  "an unknown type": { type: "object", properties: { q: { type: "strin" } } },
  "required as a string": { type: "object", required: "q" },
  "a non-object properties": { type: "object", properties: 3 },
  "a negative minLength": { type: "object", properties: { q: { type: "string", minLength: -1 } } },
  "items as a number": { type: "object", properties: { q: { type: "array", items: 5 } } },
  "duplicate required names": { type: "object", required: ["q", "q"] },
  "a repeated type": { type: "object", properties: { q: { type: ["string", "string"] } } },
  "an unknown meta-schema": { $schema: "https://example.invalid/schema", type: "object" },
  "a dangling $ref": { type: "object", properties: { q: { $ref: "#/definitions/missing" } } },
};

const valid: Record<string, object> = {
  "a plain object": { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  "draft-07 named": { $schema: "http://json-schema.org/draft-07/schema#", type: "object" },
  "types and enums": { type: "object", properties: { q: { type: ["string", "null"], enum: ["a", null] } } },
  "unknown keywords": { type: "object", "x-extension": true },
};

describe("a tool's input schema", () => {
  it("is checked by the validator the installed ajv generates", async () => {
    expect(await readFile(metaValidatorPath, "utf8"), "run node scripts/meta-validator.ts").toBe(metaValidatorSource());
  });

  for (const [name, schema] of Object.entries(invalid)) {
    it(`with ${name} is refused at open with ajv's message`, async () => {
      const expected = ajvRefusal(schema);
      expect(expected).toBeDefined();
      const error = await openWith(schema);
      expect(error).toBeInstanceOf(DeclarationError);
      expect((error as Error).message).toBe(`Tool "t": its inputSchema is not a valid JSON Schema: ${expected}`);
    });
  }

  for (const [name, schema] of Object.entries(valid)) {
    it(`with ${name} opens, as ajv compiles it`, async () => {
      expect(ajvRefusal(schema)).toBeUndefined();
      expect(await openWith(schema)).toBeUndefined();
    });
  }
});
