// Typed state: an agent's declared state types ctx.state in its instruction sections, and
// defineState gives tools typed ctx.state, setState and enabled; untyped tools and agents keep
// working (the seed's casts compile), and defineState refuses what defineAgent refuses. The
// type assertions are checked by `npm run typecheck:tests`.
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  DeclarationError,
  defineAgent,
  defineState,
  defineTool,
  type JsonValue,
  type StateOf,
  type Tool,
  type TurnContext,
} from "../src/index.js";

const model = "test/model";

describe("typed state", () => {
  it("types an agent's instruction sections by its declared state, and StateOf names it", () => {
    const agent = defineAgent("test.typed", {
      model,
      state: { updates: 0, label: "start" },
      instructions: {
        progress: (ctx) => {
          expectTypeOf(ctx.state.updates).toEqualTypeOf<number>();
          expectTypeOf(ctx.state.label).toEqualTypeOf<string>();
          // A capability's keys share the space: readable as JSON.
          expectTypeOf(ctx.state.goal).toEqualTypeOf<JsonValue | undefined>();
          return `Updates: ${ctx.state.updates + 1}`;
        },
      },
    });
    expectTypeOf<StateOf<typeof agent>>().toEqualTypeOf<{ updates: number; label: string }>();
    expect(agent.state).toEqual({ updates: 0, label: "start" });
  });

  it("types a defineState tool's ctx.state, setState and enabled", () => {
    const reporter = defineState({ updates: 0, notes: [] as string[] });
    const record = reporter.defineTool<{ note: string }>({
      name: "record_update",
      description: "Record a completed report update",
      enabled: (ctx) => ctx.state.updates < 3,
      execute(input, ctx) {
        expectTypeOf(ctx.state.updates).toEqualTypeOf<number>();
        expectTypeOf(ctx.state.notes).toEqualTypeOf<string[]>();
        ctx.setState((state) => ({ updates: state.updates + 1, notes: [...state.notes, input.note] }));
        ctx.setState({ updates: 0 });
        // @ts-expect-error: updates is a number
        ctx.setState({ updates: "many" });
        // @ts-expect-error: not a declared key
        ctx.setState({ update: 1 });
        return `Recorded update ${ctx.state.updates}.`;
      },
    });
    expectTypeOf(record).toEqualTypeOf<Tool<{ note: string }, { updates: number; notes: string[] }>>();
    const agent = defineAgent("test.reporter", { model, state: reporter.state, tools: [record] });
    expectTypeOf<StateOf<typeof agent>>().toEqualTypeOf<{ updates: number; notes: string[] }>();
    expect(agent.tools[0]).toBe(record);
    expect(Object.isFrozen(reporter.state)).toBe(true);
  });

  it("types a Standard Schema tool's input and state together", () => {
    const counter = defineState({ count: 0 });
    counter.defineTool({
      name: "add",
      description: "Add",
      inputSchema: z.object({ by: z.number() }),
      execute(input, ctx) {
        expectTypeOf(input).toEqualTypeOf<{ by: number }>();
        ctx.setState((state) => ({ count: state.count + input.by }));
        return "added";
      },
    });
  });

  // The seed's own example, casts and all, compiles in node-runner/test/seed-examples.test.ts.
  it("keeps untyped tools and agents as they were, and lets typed and untyped tools mix", () => {
    const untypedTool = defineTool({
      name: "u",
      description: "u",
      execute: (_input, ctx) => {
        expectTypeOf(ctx.state.count).toEqualTypeOf<JsonValue | undefined>();
        return "";
      },
    });
    const typed = defineState({ count: 0 }).defineTool({ name: "t", description: "t", execute: () => "" });
    // A typed tool in an untyped agent, an untyped one in a typed agent.
    defineAgent("test.mixed", { model, tools: [typed] });
    defineAgent("test.mixed2", { model, state: { count: 0 }, tools: [untypedTool] });
    const untyped = defineAgent("test.untyped", { model });
    expectTypeOf<StateOf<typeof untyped>>().toEqualTypeOf<Readonly<Record<string, JsonValue>>>();
    expectTypeOf<TurnContext["state"]>().toEqualTypeOf<Readonly<Record<string, JsonValue>>>();
  });

  it("refuses what defineAgent's state refuses", () => {
    expect(() => defineState([] as never)).toThrow(DeclarationError);
    expect(() => defineState({ when: new Date() } as never)).toThrow(/not JSON/);
    expect(() => defineState(null as never)).toThrow(/object of keys/);
  });
});
