import { describe, expect, it } from "vitest";
import { foldPunctuation, LineSeeker, lineKey, matchLevels } from "./seek.js";

describe("foldPunctuation", () => {
  it("folds the dashes, quotes and spaces Codex folds, and nothing else", () => {
    expect(foldPunctuation("\u2010\u2011\u2012\u2013\u2014\u2015\u2212")).toBe("-------");
    expect(foldPunctuation("\u2018\u2019\u201A\u201B")).toBe("''''");
    expect(foldPunctuation("\u201C\u201D\u201E\u201F")).toBe('""""');
    const spaces = "\u00A0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000";
    expect(foldPunctuation(`a${spaces}b`)).toBe(`a${" ".repeat(spaces.length)}b`);
    expect(foldPunctuation("caf\u00E9 \u2026 \u00AB\u00BB \uD83D\uDE00")).toBe(
      "caf\u00E9 \u2026 \u00AB\u00BB \uD83D\uDE00",
    );
  });

  it("returns text without such characters unchanged", () => {
    expect(foldPunctuation("plain -'\" text")).toBe("plain -'\" text");
  });
});

describe("lineKey", () => {
  it("drops only a final CR at the exact level", () => {
    expect(lineKey(" a \r", "exact")).toBe(" a ");
    expect(lineKey("a\r\r", "exact")).toBe("a\r");
    expect(lineKey("a\rb", "exact")).toBe("a\rb");
  });

  it("loosens step by step down the ladder", () => {
    const line = "\t\u201Cx\u201D \u2014 y \r";
    expect(matchLevels.map((level) => lineKey(line, level))).toEqual([
      "\t\u201Cx\u201D \u2014 y ",
      "\t\u201Cx\u201D \u2014 y",
      "\u201Cx\u201D \u2014 y",
      '"x" - y',
    ]);
  });
});

describe("LineSeeker", () => {
  const seeker = new LineSeeker(["a", "b", "a", "b", "c"]);

  it("finds a unique run, or reports every start of an ambiguous one", () => {
    expect(seeker.seek(["b", "c"], { from: 0 })).toEqual({ type: "found", start: 3, level: "exact" });
    expect(seeker.seek(["a", "b"], { from: 0 })).toEqual({
      type: "ambiguous",
      level: "exact",
      count: 2,
      starts: [0, 2],
    });
  });

  it("searches from `from` on, so an earlier match does not count", () => {
    expect(seeker.seek(["a", "b"], { from: 1 })).toEqual({ type: "found", start: 2, level: "exact" });
    expect(seeker.seek(["a"], { from: 3 })).toEqual({ type: "missing" });
    expect(seeker.seek(["a"], { from: 9 })).toEqual({ type: "missing" });
  });

  it("only matches the last lines with atEnd", () => {
    expect(seeker.seek(["b", "c"], { from: 0, atEnd: true })).toEqual({ type: "found", start: 3, level: "exact" });
    expect(seeker.seek(["a", "b"], { from: 0, atEnd: true })).toEqual({ type: "missing" });
  });

  it("reports a pattern longer than the lines left as missing, and refuses an empty one", () => {
    expect(seeker.seek(["a", "b", "a", "b", "c", "d"], { from: 0 })).toEqual({ type: "missing" });
    expect(() => seeker.seek([], { from: 0 })).toThrow(RangeError);
  });

  it("names the level that matched", () => {
    const loose = new LineSeeker(["x  ", "  y", "\u2018z\u2019"]);
    expect(loose.seek(["x"], { from: 0 })).toMatchObject({ type: "found", level: "trailing-whitespace" });
    expect(loose.seek(["y"], { from: 0 })).toMatchObject({ type: "found", level: "trimmed" });
    expect(loose.seek(["'z'"], { from: 0 })).toMatchObject({ type: "found", level: "punctuation" });
  });

  it("lists at most five starts of an ambiguous run, counting them all", () => {
    const many = new LineSeeker(Array.from({ length: 12 }, () => "x"));
    expect(many.seek(["x", "x"], { from: 0 })).toEqual({
      type: "ambiguous",
      level: "exact",
      count: 11,
      starts: [0, 1, 2, 3, 4],
    });
  });
});
