// OpenRouter's reasoning chunks as it streams them for a Claude model with reasoning on: the
// readable text both as `reasoning` and as `reasoning.text` pieces at index 0, the signature in
// a piece of its own at the end, redacted reasoning as a `reasoning.encrypted` entry after it.
import type { JsonObject } from "@castellan/harness";
import type { SseEvent } from "../support/http-fixture.js";
import { chunk } from "./chat-fixture.js";

const format = "anthropic-claude-v1";

/** The reasoning chunks; `encrypted` adds a redacted entry at index 1. */
export function claudeReasoning(pieces: readonly string[], signature: string, encrypted?: string): SseEvent[] {
  const events: SseEvent[] = pieces.map((text) => ({
    data: chunk({
      content: "",
      reasoning: text,
      reasoning_details: [{ type: "reasoning.text", text, format, index: 0 }],
    }),
  }));
  events.push({
    data: chunk({
      content: "",
      reasoning_details: [{ type: "reasoning.text", text: "", signature, format, index: 0 }],
    }),
  });
  if (encrypted !== undefined) {
    events.push({
      data: chunk({
        content: "",
        reasoning_details: [{ type: "reasoning.encrypted", data: encrypted, format, index: 1 }],
      }),
    });
  }
  return events;
}

/** The complete entries those chunks assemble into, keys in the order of their first piece. */
export function claudeDetails(pieces: readonly string[], signature: string, encrypted?: string): JsonObject[] {
  return [
    { type: "reasoning.text", text: pieces.join(""), format, index: 0, signature },
    ...(encrypted === undefined ? [] : [{ type: "reasoning.encrypted", data: encrypted, format, index: 1 }]),
  ];
}

/** An answer with the reasoning chunks after its first (role) chunk. */
export function reasoningThen(reasoning: readonly SseEvent[], answer: readonly SseEvent[]): SseEvent[] {
  return [...answer.slice(0, 1), ...reasoning, ...answer.slice(1)];
}
