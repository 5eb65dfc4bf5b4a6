import type { OpenAnswer } from "./send-and-read.js";

// Server-sent events decoding for every adapter that streams over SSE. The adapters read the
// raw body instead of the SDKs' stream iterators: the Chat Completions iterator ends the same
// way whether or not `data: [DONE]` arrived, so a stream cut short would look complete, and
// each SDK iterator costs several async generator steps per event. Decoding here keeps that
// difference (and skips `:` comment lines such as OpenRouter's `: OPENROUTER PROCESSING`
// keep-alives, as the SSE format requires).

/** One dispatched event: its `event:` name, if any, and its joined `data:` lines. */
export interface SseMessage {
  readonly event: string | undefined;
  readonly data: string;
}

/**
 * Decodes the event stream `reader` reads. A final event whose lines all arrived is dispatched
 * even without the blank line after it; a line cut off mid-way is dropped, so a truncated
 * `[DONE]` does not count. Read failures are thrown as they come. The reader is the caller's
 * to cancel: the shared loop does when it stops reading early (shared/send-and-read.ts).
 */
export async function* readSse(reader: ReadableStreamDefaultReader<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let event: string | undefined;
  const dispatch = (): SseMessage | undefined => {
    const message = data.length > 0 ? { event, data: data.join("\n") } : undefined;
    data = [];
    event = undefined;
    return message;
  };
  while (true) {
    const chunk = await reader.read();
    buffer += chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
    let newline = buffer.search(/\r\n|\r|\n/);
    // A lone `\r` at the end may be the first half of `\r\n`: wait for the next chunk.
    while (newline !== -1 && !(buffer[newline] === "\r" && newline === buffer.length - 1 && !chunk.done)) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
      if (line === "") {
        const message = dispatch();
        if (message) yield message;
      } else if (!line.startsWith(":")) {
        const colon = line.indexOf(":");
        const name = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (name === "data") data.push(value);
        else if (name === "event") event = value;
      }
      newline = buffer.search(/\r\n|\r|\n/);
    }
    if (chunk.done) {
      const message = dispatch();
      if (message) yield message;
      return;
    }
  }
}

/** An answer read as SSE messages, with its response headers (for errors built from its body). */
export interface SseAnswer extends OpenAnswer<SseMessage> {
  readonly headers: Headers;
}

/**
 * An answer whose headers arrived, opened for the shared send-and-read loop: its body decoded
 * as SSE messages (none when it has no body), its request id, its headers, and a `cancel`
 * that lets go of the reader.
 */
export function sseAnswer(response: Response, requestId: string | undefined): SseAnswer {
  const headers = response.headers;
  if (!response.body) {
    const none: { next(): Promise<IteratorResult<SseMessage>> } = {
      next: () => Promise.resolve({ value: undefined, done: true }),
    };
    return { items: none, requestId, headers };
  }
  const reader = response.body.getReader();
  return {
    items: readSse(reader),
    requestId,
    headers,
    cancel: () => {
      reader.cancel().catch(() => undefined);
    },
  };
}
