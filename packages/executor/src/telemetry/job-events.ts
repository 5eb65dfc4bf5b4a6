import type { ServerResponse } from "node:http";
import type { JsonValue } from "@castellan/harness";

/** One event of a job's stream: its job-scoped `seq`, its kind, and its JSON data. */
export interface JobEvent {
  readonly seq: number;
  readonly kind: string;
  readonly data: JsonValue;
}

/** Events kept for `Last-Event-ID` replays. */
export const bufferedJobEvents = 1_000;

/** A client further behind than this many bytes is dropped. */
export const maxClientLagBytes = 1_048_576;

/** The kinds that end a job's stream. */
const endKind = "job-end";

/**
 * A job's event stream: a bounded ring of its last 1,000 events and the SSE clients following
 * it. Publishing writes to every client at once; a client whose unsent bytes pass 1 MiB is
 * dropped rather than buffered without bound. A client that connects with `Last-Event-ID` gets
 * the buffered events after it first; after `job-end` every stream ends.
 */
export class JobEventStream {
  private readonly buffer: JobEvent[] = [];
  private readonly clients = new Set<ServerResponse>();
  private next = 1;
  private ended = false;

  /** Publishes an event to every client (scrub it before). */
  publish(kind: string, data: JsonValue): void {
    const event: JobEvent = { seq: this.next++, kind, data };
    this.buffer.push(event);
    if (this.buffer.length > bufferedJobEvents) this.buffer.shift();
    for (const client of this.clients) this.send(client, event);
    if (kind === endKind) {
      this.ended = true;
      for (const client of this.clients) client.end();
      this.clients.clear();
    }
  }

  /** Serves one SSE client: the buffered events after `lastEventId`, then the live ones. */
  follow(response: ServerResponse, lastEventId: number | undefined): void {
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
    });
    for (const event of this.buffer) {
      if (lastEventId === undefined || event.seq > lastEventId) this.send(response, event);
    }
    if (this.ended) {
      response.end();
      return;
    }
    this.clients.add(response);
    response.once("close", () => this.clients.delete(response));
  }

  private send(client: ServerResponse, event: JobEvent): void {
    if (client.writableLength > maxClientLagBytes) {
      this.clients.delete(client);
      client.destroy();
      return;
    }
    client.write(`id: ${event.seq}\nevent: ${event.kind}\ndata: ${JSON.stringify(event.data)}\n\n`);
  }
}
