// The fixture server's answers: one complete streamed answer per request, in each provider's
// real wire format (event names, framing, the fields the official SDKs read), as one SSE body.
// A turn before the last answers with one `tick` tool call; the last turn with text.

/** The wire formats the fixture speaks. */
export type WireFormat = "anthropic" | "chat" | "responses";

/** The request path of each format, below the server's root. */
export const wirePaths: Readonly<Record<WireFormat, string>> = {
  anthropic: "/v1/messages",
  chat: "/v1/chat/completions",
  responses: "/v1/responses",
};

/** What the model says at a turn: a tool call (turn < turns) or the final text. */
export interface TurnAnswer {
  readonly turn: number;
  readonly turns: number;
}

/** The final answer's text, which every loop must end with. */
export function finalText(turns: number): string {
  return `done after ${turns} turns`;
}

/** The `tick` call of a tool-call turn: its id, and its arguments as JSON text. */
export function toolCallOf(format: WireFormat, turn: number): { readonly id: string; readonly json: string } {
  const prefix = format === "anthropic" ? "toolu_" : "call_";
  return { id: `${prefix}${String(turn).padStart(6, "0")}`, json: JSON.stringify({ n: turn }) };
}

const frame = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

/** The SSE body answering `answer` in `format`. */
export function sseAnswer(format: WireFormat, answer: TurnAnswer): string {
  switch (format) {
    case "anthropic":
      return anthropicAnswer(answer);
    case "chat":
      return chatAnswer(answer);
    case "responses":
      return responsesAnswer(answer);
  }
}

function anthropicAnswer({ turn, turns }: TurnAnswer): string {
  const event = (type: string, fields: object) => frame({ type, ...fields }, type);
  const usage = {
    input_tokens: 20 + turn,
    output_tokens: 1,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
  const message = {
    id: `msg_${turn}`,
    type: "message",
    role: "assistant",
    model: "claude-bench",
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage,
  };
  let body = event("message_start", { message }) + event("ping", {});
  let stopReason: string;
  if (turn < turns) {
    const call = toolCallOf("anthropic", turn);
    body +=
      event("content_block_start", {
        index: 0,
        content_block: { type: "tool_use", id: call.id, name: "tick", input: {} },
      }) +
      event("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: call.json } }) +
      event("content_block_stop", { index: 0 });
    stopReason = "tool_use";
  } else {
    body +=
      event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }) +
      event("content_block_delta", { index: 0, delta: { type: "text_delta", text: finalText(turns) } }) +
      event("content_block_stop", { index: 0 });
    stopReason = "end_turn";
  }
  return (
    body +
    event("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 9 } }) +
    event("message_stop", {})
  );
}

function chatAnswer({ turn, turns }: TurnAnswer): string {
  const head = {
    id: `chatcmpl-${turn}`,
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "bench-model",
  };
  const chunk = (delta: object, finishReason: string | null = null) =>
    frame({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] });
  const usage = { prompt_tokens: 20 + turn, completion_tokens: 9, total_tokens: 29 + turn };
  let body: string;
  if (turn < turns) {
    const call = toolCallOf("chat", turn);
    body =
      chunk({ role: "assistant", content: null }) +
      chunk({ tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: "tick", arguments: "" } }] }) +
      chunk({ tool_calls: [{ index: 0, function: { arguments: call.json } }] }) +
      chunk({}, "tool_calls");
  } else {
    body = chunk({ role: "assistant", content: "" }) + chunk({ content: finalText(turns) }) + chunk({}, "stop");
  }
  return `${body}${frame({ ...head, choices: [], usage: { ...usage, prompt_tokens_details: { cached_tokens: 0 } } })}${frame("[DONE]")}`;
}

function responsesAnswer({ turn, turns }: TurnAnswer): string {
  let sequence = 0;
  const event = (type: string, fields: object) => frame({ type, sequence_number: sequence++, ...fields }, type);
  const response = (status: string, output: object[]) => ({
    id: `resp_${turn}`,
    object: "response",
    created_at: 1_760_000_000,
    status,
    error: null,
    incomplete_details: null,
    model: "gpt-bench",
    output,
    parallel_tool_calls: true,
    store: false,
    usage:
      status === "completed"
        ? {
            input_tokens: 20 + turn,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 9,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 29 + turn,
          }
        : null,
  });
  let body = event("response.created", { response: response("in_progress", []) });
  body += event("response.in_progress", { response: response("in_progress", []) });
  let item: object;
  if (turn < turns) {
    const call = toolCallOf("responses", turn);
    const id = `fc_${turn}`;
    const started = { id, type: "function_call", status: "in_progress", arguments: "", call_id: call.id, name: "tick" };
    item = { ...started, status: "completed", arguments: call.json };
    body +=
      event("response.output_item.added", { output_index: 0, item: started }) +
      event("response.function_call_arguments.delta", { item_id: id, output_index: 0, delta: call.json }) +
      event("response.function_call_arguments.done", { item_id: id, output_index: 0, arguments: call.json });
  } else {
    const id = `msg_${turn}`;
    const text = finalText(turns);
    const part = { output_index: 0, item_id: id, content_index: 0 };
    const started = { id, type: "message", status: "in_progress", content: [], role: "assistant" };
    const content = { type: "output_text", annotations: [], text };
    item = { ...started, status: "completed", content: [{ ...content, logprobs: [] }] };
    body +=
      event("response.output_item.added", { output_index: 0, item: started }) +
      event("response.content_part.added", { ...part, part: { ...content, text: "" } }) +
      event("response.output_text.delta", { ...part, delta: text, logprobs: [] }) +
      event("response.output_text.done", { ...part, text, logprobs: [] }) +
      event("response.content_part.done", { ...part, part: content });
  }
  body += event("response.output_item.done", { output_index: 0, item });
  return body + event("response.completed", { response: response("completed", [item]) });
}
