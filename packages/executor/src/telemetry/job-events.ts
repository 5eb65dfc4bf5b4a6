import type { ServerResponse } from "node:http";
import type { JsonValue } from "@castellan/harness";
import type { JobEventSink } from "./event-log.js";

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

/** Options of a {@link JobEventStream}. */
export interface JobEventStreamOptions {
  /** Events the job already published (its saved ring, oldest first): numbering goes on after the last. Default none. */
  readonly events?: readonly JobEvent[];
  /** Where each published event is also handed (the job's event file). Default: nowhere. */
  readonly sink?: JobEventSink;
}

/**
 * A job's event stream: a bounded ring of its last 1,000 events and the SSE clients following
 * it. Publishing writes to every client at once; a client whose unsent bytes pass 1 MiB is
 * dropped rather than buffered without bound. A client that connects with `Last-Event-ID` gets
 * the buffered events after it first, any other client the whole ring. While the last event
 * is `job-end` the stream is ended: a client gets the replay and the end; an event published
 * after it (a resumed run) makes the stream live again, its numbering going on.
 */
export class JobEventStream {
  private readonly buffer: JobEvent[];
  private readonly clients = new Set<ServerResponse>();
  private readonly sink: JobEventSink | undefined;
  private next: number;

  constructor(options: JobEventStreamOptions = {}) {
    this.buffer = (options.events ?? []).slice(-bufferedJobEvents);
    this.next = (this.buffer.at(-1)?.seq ?? 0) + 1;
    this.sink = options.sink;
  }

  /** Whether the last event is `job-end`: the job's current run has settled. */
  get ended(): boolean {
    return this.buffer.at(-1)?.kind === endKind;
  }

  /** The last event published, if any. */
  get last(): JobEvent | undefined {
    return this.buffer.at(-1);
  }

  /** Publishes an event to every client (scrub it before). */
  publish(kind: string, data: JsonValue): void {
    const event: JobEvent = { seq: this.next++, kind, data };
    this.buffer.push(event);
    if (this.buffer.length > bufferedJobEvents) this.buffer.shift();
    this.sink?.append(event, this.buffer);
    for (const client of this.clients) this.send(client, event);
    if (kind === endKind) {
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
