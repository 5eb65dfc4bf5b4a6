/**
 * An ordered, buffered event stream with one consumer: events pushed before iteration starts
 * are kept and delivered first. Ending it completes the iterator after the buffered events.
 */
export class EventChannel<Event> implements AsyncIterable<Event> {
  private readonly buffer: Event[] = [];
  private head = 0;
  private ended = false;
  private iterating = false;
  private wake: (() => void) | undefined;

  push(event: Event): void {
    if (this.ended) return;
    this.buffer.push(event);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Event> {
    if (this.iterating) throw new TypeError("A Run's events can be iterated once.");
    this.iterating = true;
    while (true) {
      if (this.head < this.buffer.length) {
        const event = this.buffer[this.head] as Event;
        // Release delivered events so a long Run holds only what is not yet consumed.
        this.buffer[this.head++] = undefined as Event;
        if (this.head > 1024 && this.head * 2 > this.buffer.length) {
          this.buffer.splice(0, this.head);
          this.head = 0;
        }
        yield event;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }
}
