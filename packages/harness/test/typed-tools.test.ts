// defineTool's input types and schemas: a Standard Schema (Zod 4, ArkType, Valibot through its
// Standard JSON Schema wrapper) types execute's input and becomes the JSON Schema the model is
// shown; a JSON Schema written `as const` types it through json-schema-to-ts's FromSchema.
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import type { FromSchema } from "json-schema-to-ts";
import * as v from "valibot";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { DeclarationError, defineTool, isStandardSchema, type Tool, type ToolContext } from "../src/index.js";

describe("defineTool with a Standard Schema", () => {
  it("types the input from a Zod schema and shows the model z.toJSONSchema's schema", () => {
    const schema = z.object({ path: z.string().describe("Where"), lines: z.number().int().default(10) });
    const tool = defineTool({
      name: "read",
      description: "Read",
      inputSchema: schema,
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ path: string; lines: number }>();
        return input.path;
      },
    });
    expectTypeOf(tool).toEqualTypeOf<Tool<{ path: string; lines: number }>>();
    const { $schema: _dialect, ...expected } = z.toJSONSchema(schema, { target: "draft-07", io: "input" });
    expect(tool.inputSchema).toEqual(expected);
    expect(tool.inputSchema).not.toHaveProperty("$schema");
    expect(tool.inputStandardSchema).toBe(schema);
    expect(Object.isFrozen(tool.inputSchema)).toBe(true);
  });

  it("types the input from ArkType and from a wrapped Valibot schema", () => {
    const ark = defineTool({
      name: "ark",
      description: "Ark",
      inputSchema: type({ name: "string", "count?": "number" }),
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ name: string; count?: number }>();
        return input.name;
      },
    });
    expect(ark.inputSchema).toMatchObject({ type: "object", required: ["name"] });
    const valibot = defineTool({
      name: "val",
      description: "Val",
      inputSchema: toStandardJsonSchema(v.object({ query: v.string() })),
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ query: string }>();
        return input.query;
      },
    });
    expect(valibot.inputSchema).toMatchObject({ type: "object", properties: { query: { type: "string" } } });
  });

  it("refuses a Standard Schema that cannot describe itself, naming the remedy, and a non-object one", () => {
    const bare = v.object({ query: v.string() });
    expect(isStandardSchema(bare)).toBe(true);
    expect(() => defineTool({ name: "val", description: "Val", inputSchema: bare, execute: () => "" })).toThrow(
      DeclarationError,
    );
    expect(() => defineTool({ name: "val", description: "Val", inputSchema: bare, execute: () => "" })).toThrow(
      /toStandardJsonSchema from @valibot\/to-json-schema/,
    );
    expect(() => defineTool({ name: "num", description: "Num", inputSchema: z.number(), execute: () => "" })).toThrow(
      /must describe an object/,
    );
  });
});

describe("defineTool with a JSON Schema", () => {
  it("types the input of a schema written as const through FromSchema, and keeps any otherwise", () => {
    const schema = {
      type: "object",
      properties: { task: { type: "string" }, urgent: { type: "boolean" } },
      required: ["task"],
      additionalProperties: false,
    } as const;
    const typed = defineTool<FromSchema<typeof schema>>({
      name: "typed",
      description: "Typed",
      inputSchema: schema,
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ task: string; urgent?: boolean }>();
        return input.task;
      },
    });
    expect(typed.inputSchema).toEqual(schema);
    expect(typed.inputStandardSchema).toBeUndefined();
    const explicit = defineTool<{ path: string }>({
      name: "explicit",
      description: "Explicit",
      inputSchema: { type: "object", properties: { path: { type: "string" } } },
      execute: (input, ctx) => {
        expectTypeOf(input).toEqualTypeOf<{ path: string }>();
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
        return input.path;
      },
    });
    expectTypeOf(explicit).toEqualTypeOf<Tool<{ path: string }>>();
    const untyped = defineTool({ name: "untyped", description: "Untyped", execute: (input) => String(input) });
    expectTypeOf(untyped).toEqualTypeOf<Tool<any>>();
  });
});
