import { describe, expect, it } from "vitest";
import {
  type BindingKind,
  DeclarationError,
  defineAgent,
  defineCapability,
  defineTool,
  hostTool,
  type ModelBinding,
  resource,
} from "../src/index.js";

const model: ModelBinding = {
  specifier: "test/model",
  contextWindow: 1000,
  async *stream() {
    yield { type: "finish", stopReason: "end" };
  },
};

const lookup = defineTool({
  name: "lookup",
  description: "Look something up",
  inputSchema: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
  readOnly: true,
  execute: () => "found",
});

describe("defineAgent", () => {
  it("returns a frozen value holding the declaration", () => {
    const state = { count: 0, nested: { list: [1, 2] } };
    const agent = defineAgent("app.agent", { model, instructions: "Hi", tools: [lookup], state, params: ["tenant"] });
    expect(Object.isFrozen(agent)).toBe(true);
    expect(Object.isFrozen(agent.tools)).toBe(true);
    expect(Object.isFrozen(agent.state.nested)).toBe(true);
    expect(agent.id).toBe("app.agent");
    expect(agent.params).toEqual(["tenant"]);
    state.count = 5;
    expect(agent.state.count).toBe(0);
  });

  it("accepts a model name and does not call the model", () => {
    let called = false;
    const spy: ModelBinding = {
      ...model,
      stream: () => {
        called = true;
        return model.stream({} as never, { signal: new AbortController().signal });
      },
    };
    defineAgent("a", { model: spy });
    defineAgent("b", { model: "app/chat" });
    expect(called).toBe(false);
  });

  it.each([
    ["an empty id", () => defineAgent("", { model })],
    ["an id with spaces", () => defineAgent("my agent", { model })],
    ["no model", () => defineAgent("a", {} as never)],
    ["an empty model name", () => defineAgent("a", { model: "" })],
    ["a binding without specifier", () => defineAgent("a", { model: { stream: model.stream } as never })],
    ["instructions of a number", () => defineAgent("a", { model, instructions: 5 as never })],
    ["a section of a number", () => defineAgent("a", { model, instructions: { one: 1 as never } })],
    ["tools that are not tools", () => defineAgent("a", { model, tools: [{ name: "x" } as never] })],
    ["non-JSON state", () => defineAgent("a", { model, state: { when: new Date() as never } })],
    ["a param listed twice", () => defineAgent("a", { model, params: ["x", "x"] })],
    ["a sandbox without open", () => defineAgent("a", { model, sandbox: { specifier: "s" } as never })],
  ])("rejects %s with a DeclarationError", (_name, declare) => {
    expect(declare).toThrow(DeclarationError);
  });
});

describe("defineTool", () => {
  it("defaults the schema to an object and readOnly to false", () => {
    const tool = defineTool({ name: "ping", description: "Ping", execute: () => "pong" });
    expect(tool.inputSchema).toEqual({ type: "object", properties: {} });
    expect(tool.readOnly).toBe(false);
    expect(tool.idempotent).toBe(false);
    expect(Object.isFrozen(tool)).toBe(true);
    expect(Object.isFrozen(tool.inputSchema)).toBe(true);
  });

  it.each<[string, unknown]>([
    ["a name with spaces", { name: "do it", description: "", execute: () => "" }],
    ["a name over 64 characters", { name: "x".repeat(65), description: "", execute: () => "" }],
    ["no execute", { name: "x", description: "" }],
    ["a non-object schema", { name: "x", description: "", inputSchema: { type: "string" }, execute: () => "" }],
    [
      "a non-JSON schema",
      { name: "x", description: "", inputSchema: { type: "object", f: () => 1 }, execute: () => "" },
    ],
    ["a bad enabled", { name: "x", description: "", enabled: "yes", execute: () => "" }],
  ])("rejects %s", (_name, definition) => {
    expect(() => defineTool(definition as never)).toThrow(DeclarationError);
  });

  it("makes host tool references", () => {
    expect(hostTool("web_search")).toEqual({ kind: "host-tool", name: "web_search" });
    expect(() => hostTool("bad name")).toThrow(DeclarationError);
  });
});

describe("defineCapability", () => {
  it("freezes its parts and checks sections and resources", () => {
    const kind: BindingKind<string, string> = { name: "text", acquire: async (spec) => ({ value: spec, close() {} }) };
    const capability = defineCapability({
      name: "notes",
      tools: [lookup],
      instructions: [{ name: "notes", text: "Use notes.", placement: "context" }],
      state: { notes: [] },
      resources: [resource(kind, "hello")],
    });
    expect(capability.kind).toBe("capability");
    expect(Object.isFrozen(capability.instructions[0])).toBe(true);
    expect(() => defineCapability({ name: "" })).toThrow(DeclarationError);
    expect(() =>
      defineCapability({ name: "x", instructions: [{ name: "a", text: "t", placement: "top" as never }] }),
    ).toThrow(DeclarationError);
    expect(() => defineCapability({ name: "x", resources: [{}] as never })).toThrow(DeclarationError);
    expect(() => resource({} as never, "spec")).toThrow(DeclarationError);
  });

  it("accepts a section that names one of its own resources and rejects one naming another's", () => {
    const kind: BindingKind<string, string> = { name: "text", acquire: async (spec) => ({ value: spec, close() {} }) };
    const own = resource(kind, "own");
    const section = { name: "notes", text: (ctx: { resource: (r: typeof own) => string }) => ctx.resource(own) };
    const capability = defineCapability({
      name: "notes",
      resources: [own],
      instructions: [{ ...section, resource: own }],
    });
    expect(capability.instructions[0]?.resource).toBe(own);
    expect(() =>
      defineCapability({
        name: "x",
        resources: [own],
        instructions: [{ ...section, resource: resource(kind, "other") }],
      }),
    ).toThrow(/section "notes" reads a resource the capability does not declare/);
  });
});

describe("deepFreeze", () => {
  it("walks into an object that was only frozen shallowly", async () => {
    const { deepFreeze } = await import("../src/index.js");
    const inner = { list: [1, 2] };
    const outer = Object.freeze({ inner });
    deepFreeze(outer);
    expect(Object.isFrozen(inner)).toBe(true);
    expect(Object.isFrozen(inner.list)).toBe(true);
  });
});
