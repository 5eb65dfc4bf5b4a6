// Reading the wait a provider asks for, from fetch Headers or a plain header record.
import { describe, expect, it } from "vitest";
import { retryAfterMs } from "../../src/shared/retry-after.js";

const now = Date.parse("2025-01-01T00:00:00Z");

describe("retryAfterMs", () => {
  it("prefers retry-after-ms, rounded up to whole milliseconds", () => {
    expect(retryAfterMs(new Headers({ "retry-after-ms": "1500", "retry-after": "2" }), now)).toBe(1500);
    expect(retryAfterMs(new Headers({ "retry-after-ms": "0.2" }), now)).toBe(1);
  });

  it("reads retry-after as seconds or an HTTP date, a past date as no wait", () => {
    expect(retryAfterMs(new Headers({ "retry-after": "7" }), now)).toBe(7000);
    expect(retryAfterMs(new Headers({ "retry-after": " 1.5 " }), now)).toBe(1500);
    expect(retryAfterMs(new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:30 GMT" }), now)).toBe(30_000);
    expect(retryAfterMs(new Headers({ "retry-after": "Tue, 31 Dec 2024 23:00:00 GMT" }), now)).toBe(0);
  });

  it("ignores absent, negative and unreadable values", () => {
    expect(retryAfterMs(undefined, now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ "retry-after": "-3" }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ "retry-after-ms": "-1", "retry-after": "2" }), now)).toBe(2000);
  });

  it("reads a plain record, whatever the case of its names", () => {
    expect(retryAfterMs({ "retry-after-ms": "250" }, now)).toBe(250);
    expect(retryAfterMs({ "Retry-After": "3" }, now)).toBe(3000);
    expect(retryAfterMs({ "x-other": "1" }, now)).toBeUndefined();
  });
});
