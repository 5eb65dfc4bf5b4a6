// A job's event stream without a network: the ring of 1,000 events for Last-Event-ID replays,
// a client more than 1 MiB behind dropped instead of buffered, and every client ended by
// job-end.
import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { bufferedJobEvents, JobEventStream, maxClientLagBytes } from "../src/index.js";

/** Just enough of a ServerResponse: what was written, how much is unsent, and whether it ended. */
function client(lag = 0) {
  const emitter = new EventEmitter();
  const written: string[] = [];
  const fake = Object.assign(emitter, {
    writableLength: lag,
    ended: false,
    destroyed: false,
    writeHead: () => fake,
    write: (chunk: string) => {
      written.push(chunk);
      return true;
    },
    end: () => {
      fake.ended = true;
    },
    destroy: () => {
      fake.destroyed = true;
    },
  });
  return { response: fake as unknown as ServerResponse, written, fake };
}

const ids = (written: readonly string[]) => written.map((chunk) => Number(/^id: (\d+)/.exec(chunk)?.[1]));

describe("a job's event stream", () => {
  it("keeps the last 1,000 events for replays after Last-Event-ID", () => {
    const stream = new JobEventStream();
    for (let index = 0; index < bufferedJobEvents + 10; index++) stream.publish("tool-end", { index });
    const late = client();
    stream.follow(late.response, 1_005);
    expect(ids(late.written)).toEqual([1_006, 1_007, 1_008, 1_009, 1_010]);
    const whole = client();
    stream.follow(whole.response, undefined);
    expect(whole.written).toHaveLength(bufferedJobEvents);
    expect(ids(whole.written)[0]).toBe(11);
  });

  it("drops a client more than 1 MiB behind and ends every client at job-end", () => {
    const stream = new JobEventStream();
    const slow = client(maxClientLagBytes + 1);
    const fast = client();
    stream.follow(slow.response, undefined);
    stream.follow(fast.response, undefined);
    stream.publish("tool-end", {});
    expect(slow.fake.destroyed).toBe(true);
    expect(slow.written).toEqual([]);
    stream.publish("job-end", { state: "succeeded" });
    expect(fast.written.map((chunk) => /event: (\S+)/.exec(chunk)?.[1])).toEqual(["tool-end", "job-end"]);
    expect(fast.fake.ended).toBe(true);
    const after = client();
    stream.follow(after.response, undefined);
    expect(after.fake.ended).toBe(true);
  });
});
