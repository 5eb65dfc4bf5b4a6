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
  /** Events pushed; events handed to the consumer; events it is done with (it asked for the next one). */
  private pushed = 0;
  private handed = 0;
  private finished = 0;
  /** Who waits for the consumer to have taken the events pushed before they asked. */
  private readonly drains: { readonly until: number; readonly resolve: () => void }[] = [];

  push(event: Event): void {
    if (this.ended || this.stopped) return;
    this.pushed++;
    const waiter = this.waiters.shift();
    if (waiter) {
      this.handed++;
      waiter({ value: event, done: false });
    } else this.buffer.push(event);
  }

  /**
   * Resolves once the consumer is done with every event pushed so far: it was handed each and
   * then asked for the next one, so its loop body for them (printing a tool call, say) has run
   * to its end. Resolves at once when nobody iterates, or iteration stopped: nothing would ever
   * take them.
   */
  delivered(): Promise<void> {
    if (!this.iterating || this.stopped || this.finished >= this.pushed) return Promise.resolve();
    return new Promise((resolve) => this.drains.push({ until: this.pushed, resolve }));
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
    // Asking for the next event means the consumer is done with every one handed before.
    this.finish(this.handed);
    if (this.head < this.buffer.length) {
      const event = this.buffer[this.head] as Event;
      // Release delivered events so a long Run holds only what is not yet consumed.
      this.buffer[this.head++] = undefined as Event;
      if (this.head > 1024 && this.head * 2 > this.buffer.length) {
        this.buffer.splice(0, this.head);
        this.head = 0;
      }
      this.handed++;
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
    for (const drain of this.drains.splice(0)) drain.resolve();
  }

  /** The consumer is done with the first `count` events: wakes the drains that waited for them. */
  private finish(count: number): void {
    this.finished = count;
    if (this.drains.length === 0) return;
    const done = this.drains.filter((drain) => drain.until <= count);
    for (const drain of done) {
      this.drains.splice(this.drains.indexOf(drain), 1);
      drain.resolve();
    }
  }

  /** Completes every waiting `next`: nothing more will come. */
  private release(): void {
    for (const waiter of this.waiters.splice(0)) waiter({ value: undefined, done: true });
  }
}
