// The mark a Responses `message` output item leaves in the saved assistant content. The text
// itself is kept as text blocks; the marker after it says where that message ended and which
// `phase` it had (`commentary` or `final_answer`, which the gpt-5.x codex models send and ask
// to get back on every assistant message), so the request rebuilds one message item per
// output message, each with its phase.
import type { JsonValue } from "@castellan/harness";

/** The marker of a message item that ended: `{ type: "message", phase }`, or `{ type: "message" }` without a phase. */
export function messageMarker(phase: string | undefined): Record<string, JsonValue> {
  return phase === undefined ? { type: "message" } : { type: "message", phase };
}

/**
 * True for a marker: a saved item of type `message` without content. Items of this adapter
 * with content never exist (message text is saved as text blocks).
 */
export function isMessageMarker(item: Readonly<Record<string, JsonValue>>): boolean {
  return item.type === "message" && item.content === undefined;
}

/** The phase a marker carries, when it is text. */
export function markerPhase(item: Readonly<Record<string, JsonValue>>): string | undefined {
  return typeof item.phase === "string" ? item.phase : undefined;
}
