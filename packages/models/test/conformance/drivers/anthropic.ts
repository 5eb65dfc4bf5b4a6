// The Anthropic Messages API on the wire: the SSE events as the API names and frames them
// (anthropic/support/wire.ts), and its error bodies.
import { answer, sendError } from "../../anthropic/support/wire.ts";
import { bind } from "../bindings.ts";
import type { ConformanceDriver, ErrorKind } from "../driver.ts";
import { KEY } from "../support/key.ts";

const errors: Readonly<Record<ErrorKind, readonly [number, string]>> = {
  auth: [401, "authentication_error"],
  forbidden: [403, "permission_error"],
  "unknown-model": [404, "not_found_error"],
  // Anthropic's answer for a prompt over the window: a 400 that says so only in its message.
  "too-long": [400, "invalid_request_error"],
  "rate-limited": [429, "rate_limit_error"],
  server: [500, "api_error"],
  unavailable: [503, "api_error"],
  overloaded: [529, "overloaded_error"],
};

export const anthropicDriver: ConformanceDriver = {
  name: "anthropic",
  provider: "anthropic",
  bind: (url, options) => bind("anthropic", url, KEY, options),
  isInference: (request) => request.method === "POST" && request.path === "/v1/messages",
  streamHeaders: { "request-id": "req_conformance" },
  text(pieces, usage) {
    return answer([{ text: pieces }], {
      usage: usage
        ? {
            // Anthropic's input_tokens leaves the cached parts out.
            input_tokens: usage.input - usage.cacheRead - usage.cacheWrite,
            output_tokens: usage.output,
            cache_read_input_tokens: usage.cacheRead,
            cache_creation_input_tokens: usage.cacheWrite,
          }
        : { input_tokens: 12, output_tokens: 3 },
    });
  },
  toolCall: ({ id, name, pieces }) => answer([{ tool: { id, name, json: pieces } }], { stopReason: "tool_use" }),
  withProviderBlock: (marker, text) =>
    answer([{ thinking: ["Noting the project."], signature: marker }, { text: [text] }]),
  // message_start, ping, the text block's start and its first delta.
  partial: (text) => answer([{ text: [text, " and more"] }]).slice(0, 4),
  brokenEvent: () => ({ event: "content_block_delta", data: '{"type": "content_block_delta", "index": 0, "delta": {' }),
  sendError(response, kind, message, headers) {
    const [status, type] = errors[kind];
    const text = kind === "too-long" ? `prompt is too long: 210000 tokens > 200000 maximum (${message})` : message;
    sendError(response, status, type, text, { ...headers });
  },
  toolResult(body, callId) {
    const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
    for (const message of messages) {
      if (message.role !== "user" || !Array.isArray(message.content)) continue;
      for (const block of message.content as Record<string, unknown>[]) {
        if (block.type !== "tool_result" || block.tool_use_id !== callId) continue;
        const parts = (block.content as Record<string, unknown>[] | undefined) ?? [];
        return {
          text: parts.map((part) => (part.type === "text" ? String(part.text) : "")).join(""),
          images: parts
            .filter((part) => part.type === "image")
            .map((part) => String((part.source as { data?: unknown }).data)),
        };
      }
    }
    return undefined;
  },
};
