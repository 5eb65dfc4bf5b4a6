import type { ModelStreamEvent } from "@castellan/harness";

/** Every event of a stream, in order; `onEvent` sees each as it arrives. */
export async function collect<Event>(stream: AsyncIterable<Event>, onEvent?: (event: Event) => void): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of stream) {
    events.push(event);
    onEvent?.(event);
  }
  return events;
}

/** The concatenated text of the text deltas. */
export function textOf(events: readonly ModelStreamEvent[]): string {
  return events.map((event) => (event.type === "text-delta" ? event.text : "")).join("");
}
