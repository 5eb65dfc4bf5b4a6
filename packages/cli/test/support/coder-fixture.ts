// A loopback Anthropic Messages server that plays a small coding agent for the CLI's tests. It
// picks each answer from the request, never from a counter: a user message "run: <command>"
// is answered with an exec_command call, a tool result with a line naming it, anything else
// with a greeting streamed in pieces. The CLI reaches it through CASTELLAN_ANTHROPIC_BASE_URL,
// so the real adapter and the real wire format are under test.
import { answer, sendAnswer, sendError } from "../../../models/test/anthropic/support/wire.ts";
import { type HttpFixture, type RecordedRequest, startHttpFixture } from "../../../models/test/support/http-fixture.ts";

interface WireBlock {
  readonly type: string;
  readonly text?: string;
  readonly content?: string | readonly WireBlock[];
}
interface WireMessage {
  readonly role: string;
  readonly content: string | readonly WireBlock[];
}

/** The text of a message's blocks (tool results included), joined. */
export function messageText(message: WireMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((block) =>
      block.type === "text"
        ? (block.text ?? "")
        : block.type === "tool_result"
          ? typeof block.content === "string"
            ? block.content
            : (block.content ?? []).map((inner) => inner.text ?? "").join("")
          : "",
    )
    .join("");
}

/** The messages of a recorded Messages request. */
export function messagesOf(request: RecordedRequest): WireMessage[] {
  return ((request.json as { messages?: WireMessage[] } | undefined)?.messages ?? []) as WireMessage[];
}

/** What the fixture answers the greeting with, in the pieces it streams. */
export const greetingPieces = ["Hello ", "from ", "the ", "fixture", "."] as const;

/**
 * Starts the fixture. `fail` answers every request with that HTTP status instead; `hold` leaves
 * the greeting unfinished (no content_block_stop, message_delta or message_stop).
 */
export async function startCoderFixture(
  options: { readonly fail?: number; readonly hold?: boolean } = {},
): Promise<HttpFixture> {
  return startHttpFixture(async (request, response) => {
    if (options.fail !== undefined) {
      sendError(response, options.fail, "authentication_error", "invalid x-api-key");
      return;
    }
    const messages = messagesOf(request);
    const last = messages.at(-1);
    const lastBlocks = last && typeof last.content !== "string" ? last.content : [];
    if (lastBlocks.some((block) => block.type === "tool_result")) {
      const text = messageText(last as WireMessage)
        .replace(/\s+/g, " ")
        .trim();
      await sendAnswer(response, answer([{ text: [`tool said: ${text.slice(0, 300)}`] }]));
      return;
    }
    const said = last ? messageText(last) : "";
    const command = /^run: (.+)$/s.exec(said.trim())?.[1];
    if (command !== undefined) {
      await sendAnswer(
        response,
        answer([{ tool: { id: "toolu_cmd_1", name: "exec_command", json: [JSON.stringify({ command })] } }], {
          stopReason: "tool_use",
        }),
      );
      return;
    }
    const events = answer([{ text: [...greetingPieces] }]);
    // `hold`: the text streams, then the answer never finishes until the client goes away.
    if (options.hold) await sendAnswer(response, events.slice(0, -3), { hold: true });
    else await sendAnswer(response, events);
  });
}
