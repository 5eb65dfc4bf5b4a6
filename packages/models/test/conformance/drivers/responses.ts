// The OpenAI Responses API on the wire, as codex and the AI SDK's Responses model read it:
// `event:` + `data:` events with sequence numbers, output items announced, streamed and done
// (codex/support/responses-sse.ts).
import { ResponsesStream } from "../../codex/support/responses-sse.ts";
import type { ConformanceDriver } from "../driver.ts";

type ResponsesWire = Pick<
  ConformanceDriver,
  "text" | "toolCall" | "withProviderBlock" | "partial" | "brokenEvent" | "toolResult"
>;

type InputItem = { type: string; call_id?: string; output?: unknown };

export const responsesWire: ResponsesWire = {
  // The Responses API reports cached reads, and no cache writes.
  text: (pieces, usage) =>
    new ResponsesStream()
      .text(pieces)
      .completed(
        usage ? { input: usage.input, output: usage.output, cached: usage.cacheRead } : { input: 12, output: 3 },
      ),
  toolCall: ({ id, name, pieces }) => new ResponsesStream().functionCall(id, name, pieces).completed(),
  withProviderBlock: (marker, text) =>
    new ResponsesStream().reasoning(["Noting the project."], marker).text([text]).completed(),
  partial(text) {
    const events = new ResponsesStream().text([text, " and more"]).events;
    const first = events.findIndex((event) => (event.data as { type?: string }).type === "response.output_text.delta");
    return events.slice(0, first + 1);
  },
  brokenEvent: () => ({ event: "response.output_text.delta", data: "{not json" }),
  toolResult(body, callId) {
    const input = (body as { input?: InputItem[] }).input ?? [];
    const item = input.find((entry) => entry.type === "function_call_output" && entry.call_id === callId);
    if (!item) return undefined;
    if (typeof item.output === "string") return { text: item.output, images: [] };
    const parts = (item.output as Record<string, unknown>[]) ?? [];
    return {
      text: parts.map((part) => (part.type === "input_text" ? String(part.text) : "")).join(""),
      images: parts
        .filter((part) => part.type === "input_image")
        .map((part) => String(part.image_url).replace(/^data:[^,]*,/, "")),
    };
  },
};
