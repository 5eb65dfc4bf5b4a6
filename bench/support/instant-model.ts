// The in-process model and the one tool every loop of the bench uses.
import type { JsonObject, ModelBinding, ModelRequest, ModelStreamEvent } from "@castellan/harness";
import { defineTool } from "@castellan/harness";

const usage = { inputTokens: 1, outputTokens: 1 } as const;

/**
 * Which turn a request belongs to. A Run's conversation is the user message, then one
 * assistant message and one tool result per finished turn, so turn t sees 2t - 1 messages.
 */
export function turnOf(messageCount: number): number {
  return (messageCount + 1) / 2;
}

/**
 * A model that answers at once: a `tick` tool call for turns 1..turns-1 and a plain text
 * answer at turn `turns`. It reads only `request.messages.length`: it never copies or walks the
 * messages, so the cost of building a model request from them is left out.
 */
export function createInstantModel(turns: number): ModelBinding {
  return {
    specifier: "bench/instant",
    contextWindow: 1_000_000,
    async *stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
      const n = turnOf(request.messages.length);
      if (n < turns) {
        yield { type: "tool-call", toolCall: { id: `call_${n}`, name: "tick", input: { n } } };
        yield { type: "usage", usage };
        yield { type: "finish", stopReason: "tool-calls" };
      } else {
        yield { type: "text-delta", text: `done after ${n} turns` };
        yield { type: "usage", usage };
        yield { type: "finish", stopReason: "end" };
      }
    },
  };
}

/** The tool's work, shared by the Castellan tool and the hand-written loop. */
export function tick(input: { readonly n: number }): string {
  return `tick ${input.n}`;
}

const tickInputSchema: JsonObject = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };

/** Not read-only, so every call goes through the permission decision (allowed by `full-access`). */
export const tickTool = defineTool({
  name: "tick",
  description: "Count one tick.",
  inputSchema: tickInputSchema,
  readOnly: false,
  execute: tick,
});

/** The same `tick`, declared read-only as a lookup tool is: every preset allows it. */
export const readOnlyTickTool = defineTool({
  name: "tick",
  description: "Count one tick.",
  inputSchema: tickInputSchema,
  readOnly: true,
  execute: tick,
});

/** The state key the stateful `tick` writes. */
export const tickState: JsonObject = { ticks: 0 };

/**
 * The same contract as `tickTool`, but every call also writes Session state (`ticks`, from the
 * latest state), so every tool-call turn commits a state write with its batch.
 */
export const statefulTickTool = defineTool({
  name: "tick",
  description: "Count one tick.",
  inputSchema: tickInputSchema,
  readOnly: false,
  execute: (input: { readonly n: number }, ctx) => {
    ctx.setState((state) => ({ ticks: (state.ticks as number) + 1 }));
    return tick(input);
  },
});
