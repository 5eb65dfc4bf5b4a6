// The bare loop's side of each wire format: the request body a hand-written client builds (the
// same fields, in the same order, as the adapters send, so the bodies are byte for byte the
// same), the two messages a tool-call turn appends, and a minimal but complete reader of one
// streamed answer (every event split out and its data JSON-parsed, the tool call assembled).
import type { JsonObject } from "@castellan/harness";
import type { WireFormat } from "./answers.ts";

/** What one Run's requests share. */
export interface BareSettings {
  readonly model: string;
  readonly key: string;
  readonly system: string;
  readonly prompt: string;
  readonly tool: { readonly name: string; readonly description: string; readonly inputSchema: JsonObject };
}

/** The tool call of an answer, as the wire gave it. */
export interface WireToolCall {
  readonly id: string;
  readonly name: string;
  /** The arguments as the wire's JSON text. */
  readonly json: string;
  /** The whole item, for formats that send it back as it came (Responses). */
  readonly item?: Record<string, unknown>;
}

/** One answer, read. */
export interface WireAnswer {
  readonly text: string;
  readonly toolCalls: readonly WireToolCall[];
}

/** A hand-written client of one format. */
export interface BareWire {
  readonly headers: Readonly<Record<string, string>>;
  /** The request's JSON value with `messages` as the conversation (what an SDK is given). */
  params(messages: readonly unknown[]): Record<string, unknown>;
  /** The request body with `messages` as the conversation: `params` as JSON. */
  body(messages: readonly unknown[]): string;
  /** The conversation a Run starts with (the user's message, after the system message in Chat). */
  initial(): unknown[];
  /** The assistant message that made `call` (with its parsed `input`), then its tool result `output`. */
  turn(call: WireToolCall, input: unknown, output: string): readonly [unknown, unknown];
  /** A reader of one answer: feed it each SSE event's `data` text, then `result()`. */
  reader(): { accept(data: string): void; result(): WireAnswer };
}

/** The hand-written client of `format`. */
export function bareWire(format: WireFormat, settings: BareSettings): BareWire {
  const wire = formatWire(format, settings);
  return { ...wire, body: (messages) => JSON.stringify(wire.params(messages)) };
}

function formatWire(format: WireFormat, settings: BareSettings): Omit<BareWire, "body"> {
  switch (format) {
    case "anthropic":
      return anthropicWire(settings);
    case "chat":
      return chatWire(settings);
    case "responses":
      return responsesWire(settings);
  }
}

function anthropicWire({ model, key, system, prompt, tool }: BareSettings): Omit<BareWire, "body"> {
  const tools = [{ name: tool.name, description: tool.description, input_schema: tool.inputSchema }];
  return {
    headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
    params: (messages) => ({ model, max_tokens: 4096, stream: true, messages, system, tools }),
    initial: () => [{ role: "user", content: [{ type: "text", text: prompt }] }],
    turn: (call, input, output) => [
      { role: "assistant", content: [{ type: "tool_use", id: call.id, name: call.name, input }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: call.id, content: [{ type: "text", text: output }], is_error: false },
        ],
      },
    ],
    reader() {
      let text = "";
      const calls: WireToolCall[] = [];
      let open: { id: string; name: string; json: string } | undefined;
      let stopped = false;
      return {
        accept(data) {
          const event = JSON.parse(data);
          switch (event.type) {
            case "content_block_start":
              if (event.content_block.type === "tool_use")
                open = { id: event.content_block.id, name: event.content_block.name, json: "" };
              break;
            case "content_block_delta":
              if (event.delta.type === "text_delta") text += event.delta.text;
              else if (event.delta.type === "input_json_delta" && open) open.json += event.delta.partial_json;
              break;
            case "content_block_stop":
              if (open) calls.push(open);
              open = undefined;
              break;
            case "message_stop":
              stopped = true;
              break;
            case "error":
              throw new Error(`The stream failed: ${data}`);
          }
        },
        result() {
          if (!stopped) throw new Error("The stream ended before message_stop.");
          return { text, toolCalls: calls };
        },
      };
    },
  };
}

function chatWire({ model, key, system, prompt, tool }: BareSettings): Omit<BareWire, "body"> {
  const tools = [
    { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } },
  ];
  return {
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    params: (messages) => ({ model, messages, tools, stream: true, stream_options: { include_usage: true } }),
    initial: () => [
      { role: "system", content: system },
      { role: "user", content: prompt },
    ],
    turn: (call, _input, output) => [
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: call.id, type: "function", function: { name: call.name, arguments: call.json } }],
      },
      { role: "tool", tool_call_id: call.id, content: output },
    ],
    reader() {
      let text = "";
      const calls: { id: string; name: string; json: string }[] = [];
      let done = false;
      return {
        accept(data) {
          if (data === "[DONE]") {
            done = true;
            return;
          }
          const chunk = JSON.parse(data);
          const delta = chunk.choices?.[0]?.delta;
          if (!delta) return;
          if (typeof delta.content === "string") text += delta.content;
          for (const part of delta.tool_calls ?? []) {
            let call = calls[part.index];
            if (!call) {
              call = { id: "", name: "", json: "" };
              calls[part.index] = call;
            }
            if (part.id) call.id = part.id;
            if (part.function?.name) call.name = part.function.name;
            if (part.function?.arguments) call.json += part.function.arguments;
          }
        },
        result() {
          if (!done) throw new Error("The stream ended before [DONE].");
          return { text, toolCalls: calls };
        },
      };
    },
  };
}

function responsesWire({ model, key, system, prompt, tool }: BareSettings): Omit<BareWire, "body"> {
  const tools = [
    { type: "function", name: tool.name, description: tool.description, parameters: tool.inputSchema, strict: false },
  ];
  const include = ["reasoning.encrypted_content"];
  return {
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    params: (input) => ({ model, stream: true, store: false, input, instructions: system, tools, include }),
    initial: () => [{ type: "message", role: "user", content: [{ type: "input_text", text: prompt }] }],
    // The call goes back as the item the server sent, as a Responses client without stored state does.
    turn: (call, _input, output) => [call.item, { type: "function_call_output", call_id: call.id, output }],
    reader() {
      let text = "";
      const calls: WireToolCall[] = [];
      let completed = false;
      return {
        accept(data) {
          const event = JSON.parse(data);
          switch (event.type) {
            case "response.output_text.delta":
              text += event.delta;
              break;
            case "response.output_item.done":
              if (event.item.type === "function_call") {
                const { item } = event;
                calls.push({ id: item.call_id, name: item.name, json: item.arguments, item });
              }
              break;
            case "response.completed":
              completed = true;
              break;
            case "response.failed":
            case "error":
              throw new Error(`The stream failed: ${data}`);
          }
        },
        result() {
          if (!completed) throw new Error("The stream ended before response.completed.");
          return { text, toolCalls: calls };
        },
      };
    },
  };
}
