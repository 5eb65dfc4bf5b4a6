import { describe, expect, it } from "vitest";
import { EventChannel } from "./event-channel.js";

async function collect(channel: EventChannel<number>): Promise<number[]> {
  const seen: number[] = [];
  for await (const event of channel) seen.push(event);
  return seen;
}

describe("EventChannel", () => {
  it("delivers events pushed before and during iteration, in order, then ends", async () => {
    const channel = new EventChannel<number>();
    channel.push(1);
    channel.push(2);
    const seen = collect(channel);
    await Promise.resolve();
    channel.push(3);
    setTimeout(() => {
      channel.push(4);
      channel.end();
      channel.push(5);
    }, 5);
    expect(await seen).toEqual([1, 2, 3, 4]);
  });

  it("answers calls of next made before any event, each with its own event", async () => {
    const channel = new EventChannel<number>();
    const iterator = channel[Symbol.asyncIterator]();
    const first = iterator.next();
    const second = iterator.next();
    const third = iterator.next();
    channel.push(1);
    channel.push(2);
    channel.end();
    expect(await first).toEqual({ value: 1, done: false });
    expect(await second).toEqual({ value: 2, done: false });
    expect(await third).toEqual({ value: undefined, done: true });
  });

  it("can be iterated once; a second iterator rejects with a TypeError", async () => {
    const channel = new EventChannel<number>();
    channel.end();
    expect(await collect(channel)).toEqual([]);
    await expect(channel[Symbol.asyncIterator]().next()).rejects.toThrow(TypeError);
  });

  it("stops delivering after the consumer breaks out, and wakes a waiting next", async () => {
    const channel = new EventChannel<number>();
    const iterator = channel[Symbol.asyncIterator]();
    channel.push(1);
    expect(await iterator.next()).toEqual({ value: 1, done: false });
    const waiting = iterator.next();
    await iterator.return?.();
    expect(await waiting).toEqual({ value: undefined, done: true });
    channel.push(2);
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
  });

  it("releases delivered events as a long stream is consumed", async () => {
    const channel = new EventChannel<number>();
    for (let index = 0; index < 5000; index++) channel.push(index);
    channel.end();
    const seen = await collect(channel);
    expect(seen).toHaveLength(5000);
    expect(seen[4999]).toBe(4999);
    expect((channel as unknown as { buffer: unknown[] }).buffer.length).toBeLessThan(5000);
  });
});
