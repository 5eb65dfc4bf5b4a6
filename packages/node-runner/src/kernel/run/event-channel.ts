/**
 * An ordered, buffered event stream with one consumer: events pushed before iteration starts
 * are kept and delivered first. Ending it completes the iterator after the buffered events.
 * The iterator is written by hand, not as an async generator: a buffered event is handed out
 * as an already settled promise, with none of a generator's per-step promises.
 */
export class EventChannel<Event> implements AsyncIterable<Event> {
  private buffer: Event[] = [];
  private head = 0;
  private ended = false;
  /** The consumer returned early (a `break` out of `for await`): nothing more is delivered. */
  private stopped = false;
  private iterating = false;
  /** Consumers' `next` calls waiting for an event; only while the buffer is empty. */
  private readonly waiters: ((result: IteratorResult<Event>) => void)[] = [];

  push(event: Event): void {
    if (this.ended || this.stopped) return;
    const waiter = this.waiters.shift();
    if (waiter) waiter({ value: event, done: false });
    else this.buffer.push(event);
  }

  end(): void {
    this.ended = true;
    this.release();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Event> {
    const first = !this.iterating;
    this.iterating = true;
    const iterator: AsyncIterableIterator<Event> = {
      next: () => (first ? this.next() : Promise.reject(new TypeError("A Run's events can be iterated once."))),
      return: () => {
        if (first) this.stop();
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  private next(): Promise<IteratorResult<Event>> {
    if (this.head < this.buffer.length) {
      const event = this.buffer[this.head] as Event;
      // Release delivered events so a long Run holds only what is not yet consumed.
      this.buffer[this.head++] = undefined as Event;
      if (this.head > 1024 && this.head * 2 > this.buffer.length) {
        this.buffer.splice(0, this.head);
        this.head = 0;
      }
      return Promise.resolve({ value: event, done: false });
    }
    if (this.ended || this.stopped) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private stop(): void {
    this.stopped = true;
    this.buffer = [];
    this.head = 0;
    this.release();
  }

  /** Completes every waiting `next`: nothing more will come. */
  private release(): void {
    for (const waiter of this.waiters.splice(0)) waiter({ value: undefined, done: true });
  }
}
