// OpenAI Chat Completions stream chunks, as the API sends them (`data:` lines, then `[DONE]`).
import type { SseEvent } from "../../support/http-fixture.js";

const base = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1_700_000_000, model: "gpt-4o-mini" };

export function delta(value: Record<string, unknown>, finishReason: string | null = null): SseEvent {
  return { data: { ...base, choices: [{ index: 0, delta: value, finish_reason: finishReason }] } };
}

export function textChunks(...pieces: string[]): SseEvent[] {
  return [delta({ role: "assistant", content: "" }), ...pieces.map((content) => delta({ content }))];
}

export function toolCallChunks(id: string, name: string, ...argumentPieces: string[]): SseEvent[] {
  return [
    delta({ role: "assistant", tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: "" } }] }),
    ...argumentPieces.map((piece) => delta({ tool_calls: [{ index: 0, function: { arguments: piece } }] })),
  ];
}

export function end(finishReason: string, usage = { prompt_tokens: 20, completion_tokens: 4, cached: 8 }): SseEvent[] {
  return [
    delta({}, finishReason),
    {
      data: {
        ...base,
        choices: [],
        usage: {
          prompt_tokens: usage.prompt_tokens,
          completion_tokens: usage.completion_tokens,
          total_tokens: usage.prompt_tokens + usage.completion_tokens,
          prompt_tokens_details: { cached_tokens: usage.cached },
        },
      },
    },
    { data: "[DONE]" },
  ];
}

/** An OpenAI error body. */
export function errorBody(message: string, type: string, code: string | null = null) {
  return { error: { message, type, param: null, code } };
}
