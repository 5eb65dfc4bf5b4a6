import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { StateShape } from "./context.js";
import { DeclarationError } from "./errors.js";
import { deepFreeze, findNonJson } from "./json.js";
import { assertNoReservedKeys } from "./reserved-state.js";
import { defineTool, type SchemaTypedDefinition, type Tool, type ToolDefinition } from "./tool.js";

/** An agent's state declared before its tools, so they can be typed by it. */
export interface AgentState<State extends StateShape> {
  /** The initial values, checked and frozen: give them to `defineAgent` as `state`. */
  readonly state: State;
  /** `defineTool`, with `ctx.state`, `ctx.setState` and `enabled` typed by `State`. */
  defineTool<Schema extends StandardSchemaV1>(
    definition: SchemaTypedDefinition<Schema, StandardSchemaV1.InferOutput<Schema>, State>,
  ): Tool<StandardSchemaV1.InferOutput<Schema>, State>;
  defineTool<Input = any>(definition: ToolDefinition<Input, State>): Tool<Input, State>;
}

/**
 * Declares an agent's state keys and initial JSON values once, and gives a `defineTool` whose
 * tools read and write them typed: `ctx.state.updates` is a `number`, and `setState` takes only
 * those keys with values of their types. A tool declared inline in `defineAgent`'s `tools`
 * cannot see the agent's `state` type (TypeScript does not carry it into a nested call); this
 * is how a tool gets it.
 *
 * ```ts
 * const reporter = defineState({ updates: 0, notes: [] as string[] });
 * const record = reporter.defineTool({ name: "record_update", description: "...",
 *   execute: (_input, ctx) => ctx.setState((state) => ({ updates: state.updates + 1 })) });
 * defineAgent("app.reporter", { model, state: reporter.state, tools: [record] });
 * ```
 *
 * @throws DeclarationError when `initial` is not an object of JSON values or uses a reserved key.
 */
export function defineState<State extends StateShape>(initial: State): AgentState<State> {
  const where = "defineState";
  if (initial === null || typeof initial !== "object" || Array.isArray(initial)) {
    throw new DeclarationError(`${where}: state must be an object of keys and initial JSON values.`);
  }
  const nonJson = findNonJson(initial);
  if (nonJson) throw new DeclarationError(`${where}: state is not JSON at ${nonJson}.`);
  assertNoReservedKeys(initial, where);
  return Object.freeze({
    state: deepFreeze(structuredClone(initial)) as State,
    defineTool: defineTool as AgentState<State>["defineTool"],
  });
}
