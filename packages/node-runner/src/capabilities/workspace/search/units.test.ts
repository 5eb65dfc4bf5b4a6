import { describe, expect, it } from "vitest";
import { excerpt } from "./excerpt.js";
import { compareNames } from "./name-order.js";

describe("excerpt", () => {
  const bytes = (text: string) => Buffer.from(text, "utf8");

  it("keeps a line within the limit whole", () => {
    expect(excerpt(bytes("short"), 16)).toEqual({ text: "short", truncated: false });
    expect(excerpt(bytes("exactly 16 bytes"), 16)).toEqual({ text: "exactly 16 bytes", truncated: false });
  });

  it("cuts before a character the limit falls inside", () => {
    // "€" is 3 bytes, "😀" 4.
    expect(excerpt(bytes("abc€def"), 4)).toEqual({ text: "abc", truncated: true });
    expect(excerpt(bytes("abc€def"), 6)).toEqual({ text: "abc€", truncated: true });
    expect(excerpt(bytes("a😀b"), 4)).toEqual({ text: "a", truncated: true });
    expect(excerpt(bytes("a😀b"), 5)).toEqual({ text: "a😀", truncated: true });
  });

  it("does not hold back bytes that are no character", () => {
    expect(excerpt(Buffer.from([0x61, 0x80, 0x80, 0x80, 0x80, 0x62]), 3)).toEqual({
      text: "a\uFFFD\uFFFD",
      truncated: true,
    });
  });
});

describe("compareNames", () => {
  it("orders names as their UTF-8 bytes", () => {
    const names = ["b", "\u{1F600}", "\uFFFD", "a", "é", "A", "a.txt", "a-b", "\uE000"];
    const expected = [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect([...names].sort(compareNames)).toEqual(expected);
  });
});
