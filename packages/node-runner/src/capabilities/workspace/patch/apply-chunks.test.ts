import { isToolInputError } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import { type AppliedChunks, applyChunks } from "./apply-chunks.js";
import { parsePatch } from "./parse.js";
import type { PatchChunk } from "./types.js";

/** The chunks of an Update section whose body is `body` (parsed, so tests read like patches). */
function chunks(...body: string[]): readonly PatchChunk[] {
  const [operation] = parsePatch(
    ["*** Begin Patch", "*** Update File: f", ...body, "*** End Patch"].join("\n"),
  ).operations;
  if (operation?.type !== "update") throw new Error("expected an update");
  return operation.chunks;
}

function apply(original: string, ...body: string[]): AppliedChunks {
  return applyChunks(original, chunks(...body), { path: "src/f.ts" });
}

/** `lines` as a file's text, each followed by LF. */
function file(...lines: string[]): string {
  return lines.map((line) => `${line}\n`).join("");
}

/** Like {@link file}, for line counts too many to pass as arguments. */
function longFile(lines: readonly string[]): string {
  return `${lines.join("\n")}\n`;
}

/** The code and message `run` fails with. */
function failure(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (isToolInputError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected a ToolInputError, but the chunks applied");
}

describe("applyChunks: edits", () => {
  it("replaces the removed lines, keeping context, and counts the chunk", () => {
    expect(apply(file("a", "b", "c"), " a", "-b", "+B", "+B2", " c")).toEqual({
      text: file("a", "B", "B2", "c"),
      edits: 1,
    });
  });

  it("applies several chunks in file order", () => {
    const result = apply(file("1", "2", "3", "4", "5"), "@@", "-2", "+two", "@@", " 4", "-5", "+five");
    expect(result).toEqual({ text: file("1", "two", "3", "4", "five"), edits: 2 });
  });

  it("removes lines (context and `-` only), down to an empty file", () => {
    expect(apply(file("a", "b", "c"), " a", "-b", " c").text).toBe(file("a", "c"));
    expect(apply(file("only"), "-only")).toEqual({ text: "", edits: 1 });
  });

  it("does not count context-only chunks, which may still position later ones", () => {
    const original = file("x", "target", "y", "target");
    expect(apply(original, "@@", " y", "@@", "-target", "+hit")).toEqual({
      text: file("x", "target", "y", "hit"),
      edits: 1,
    });
  });

  it("refuses an update that changes nothing with no_change", () => {
    expect(failure(() => apply(file("a", "b"), " a", " b"))).toEqual({
      code: "no_change",
      message: expect.stringMatching(
        /^src\/f\.ts: the update would leave the file as it is \(its one chunk changes nothing/,
      ),
    });
    // `+` lines equal to the lines they remove change nothing either.
    expect(failure(() => apply(file("a", "b"), "@@", " a", "@@", "-b", "+b")).message).toContain(
      "none of its 2 chunks changes anything",
    );
  });

  it("names the file `the file` when no path is given", () => {
    expect(() => applyChunks("a\n", chunks(" a"))).toThrow(/^the file: the update would leave/);
  });
});

describe("applyChunks: pure additions", () => {
  it("appends a chunk of only `+` lines at the end of the file (scenario 016)", () => {
    expect(apply(file("line1", "line2"), "@@", "+added 1", "+added 2")).toEqual({
      text: file("line1", "line2", "added 1", "added 2"),
      edits: 1,
    });
  });

  it("appends after every other chunk, whatever its order, and adds to an empty file", () => {
    const result = apply(file("a", "b"), "@@", "+end", "@@", "-a", "+A");
    expect(result).toEqual({ text: file("A", "b", "end"), edits: 2 });
    expect(apply("", "+first").text).toBe(file("first"));
  });

  it("inserts right below its `@@` line when it has one", () => {
    const original = file("def one():", "    pass", "def two():", "    pass");
    expect(apply(original, "@@ def two():", "+    print(2)").text).toBe(
      file("def one():", "    pass", "def two():", "    print(2)", "    pass"),
    );
  });

  it("appends at the end with `*** End of File`, even below an `@@` line", () => {
    expect(apply(file("a", "b"), "@@ a", "+z", "*** End of File").text).toBe(file("a", "b", "z"));
  });

  it("lets the next chunk match right below an inserted chunk's `@@` line", () => {
    const result = apply(file("head", "body"), "@@ head", "+inserted", "@@", "-body", "+BODY");
    expect(result).toEqual({ text: file("head", "inserted", "BODY"), edits: 2 });
  });
});

describe("applyChunks: the matching ladder", () => {
  it("matches exactly first", () => {
    expect(apply(file("  x  ", "x"), "-x", "+y").text).toBe(file("  x  ", "y"));
  });

  it("falls back to ignoring trailing whitespace", () => {
    expect(apply(file("a", "x  \t", "b"), " a", "-x", "+y").text).toBe(file("a", "y", "b"));
  });

  it("falls back to ignoring surrounding whitespace, keeping the file's context lines as they are", () => {
    const original = file("    if (ready) {", "        go();", "    }");
    expect(apply(original, " if (ready) {", "-    go();", "+        stop();", " }").text).toBe(
      file("    if (ready) {", "        stop();", "    }"),
    );
  });

  it("falls back to folding typographic punctuation to ASCII, keeping context lines' bytes", () => {
    const original = file("title \u2014 \u201Cquoted\u201D", "it\u2019s\u00A0here", "end");
    const result = apply(original, ' title - "quoted"', "-it's here", "+it is here");
    expect(result.text).toBe(file("title \u2014 \u201Cquoted\u201D", "it is here", "end"));
  });

  it("takes a unique match at an earlier level even when a later level would match more", () => {
    expect(apply(file("value ", "value"), "-value", "+v").text).toBe(file("value ", "v"));
    expect(apply(file(" value", "value"), "-value", "+v").text).toBe(file(" value", "v"));
  });

  it("applies the ladder to `@@` lines too", () => {
    const original = file("function a() {", "  return 1;", "}", "  function b() {  ", "  return 1;", "}");
    expect(apply(original, "@@ function b() {", "-  return 1;", "+  return 2;").text).toBe(
      file("function a() {", "  return 1;", "}", "  function b() {  ", "  return 2;", "}"),
    );
  });

  it("matches non-ASCII text (scenario 019)", () => {
    const original = file("line1", "na\u00EFve caf\u00E9", "line3");
    expect(apply(original, " line1", "-na\u00EFve caf\u00E9", "+na\u00EFve caf\u00E9 \u2705").text).toBe(
      file("line1", "na\u00EFve caf\u00E9 \u2705", "line3"),
    );
  });
});

describe("applyChunks: ambiguity", () => {
  it("refuses lines that match more than once, with the count and the first five line numbers", () => {
    const original = file(...Array.from({ length: 14 }, (_, index) => (index % 2 === 0 ? "other" : "same")));
    const { code, message } = failure(() => apply(original, "-same", "+new"));
    expect(code).toBe("context_ambiguous");
    expect(message).toBe(
      "src/f.ts: chunk 1 of 1 (patch line 3): its context and `-` lines occur 7 times in the file, at lines 2, 4, 6, 8, 10, …. Add unchanged context lines around the change, or an `@@` line naming the enclosing function or section, so that they occur once.",
    );
  });

  it("counts only matches at the first level that matches, and says which level that is", () => {
    const trailing = failure(() => apply(file("x ", "x  ", " x"), "-x", "+z"));
    expect(trailing.code).toBe("context_ambiguous");
    expect(trailing.message).toContain(
      "occur 2 times in the file (comparing with trailing whitespace ignored), at lines 1, 2.",
    );
    const trimmed = failure(() => apply(file(" x", "\tx ", "y"), "-x", "+z"));
    expect(trimmed.message).toContain(
      "occur 2 times in the file (comparing with surrounding whitespace ignored), at lines 1, 2.",
    );
    const folded = failure(() => apply(file("a\u2013b", "a\u2014b"), "-a-b", "+c"));
    expect(folded.message).toContain("(comparing with whitespace and typographic punctuation ignored), at lines 1, 2.");
  });

  it("counts overlapping matches", () => {
    const { message } = failure(() => apply(file("a", "a", "a"), " a", "-a", "+b"));
    expect(message).toContain("occur 2 times in the file, at lines 1, 2.");
  });

  it("refuses an ambiguous `@@` line", () => {
    const original = file("def run():", "    a = 1", "def run():", "    b = 2");
    const { code, message } = failure(() => apply(original, "@@ def run():", "-    b = 2", "+    b = 3"));
    expect(code).toBe("context_ambiguous");
    expect(message).toContain('its `@@` line "def run():" occurs 2 times in the file, at lines 1, 3.');
  });

  it("uses an `@@` line to disambiguate, and a chain of them to narrow step by step", () => {
    const original = file("class A:", "  def run():", "    pass", "class B:", "  def run():", "    pass");
    expect(apply(original, "@@ class B:", "-    pass", "+    return 1").text).toBe(
      file("class A:", "  def run():", "    pass", "class B:", "  def run():", "    return 1"),
    );
    expect(apply(original, "@@ class B:", "@@   def run():", "-    pass", "+    go()").text).toContain("    go()");
  });

  it("uses an earlier chunk to disambiguate: the search starts after its match", () => {
    const original = file("start", "x", "middle", "x");
    expect(apply(original, "@@", " middle", "@@", "-x", "+y").text).toBe(file("start", "x", "middle", "y"));
  });
});

describe("applyChunks: lines not found", () => {
  it("refuses lines that are not in the file with context_not_found, quoting them (scenario 006)", () => {
    const { code, message } = failure(() => apply(file("line1", "line2"), "@@", " line1", "-missing", "+changed"));
    expect(code).toBe("context_not_found");
    expect(message).toBe(
      'src/f.ts: chunk 1 of 1 (patch line 3): these lines (its context and `-` lines) were not found in the file, even with whitespace and typographic punctuation differences ignored:\n  "line1"\n  "missing"\nRead the file again and copy the lines as they are now.',
    );
  });

  it("refuses an `@@` line that is not in the file", () => {
    const { code, message } = failure(() => apply(file("a"), "@@ nowhere", "-a", "+b"));
    expect(code).toBe("context_not_found");
    expect(message).toMatch(/its `@@` line "nowhere" was not found in the file, .* or leave the `@@` line out\.$/);
  });

  it("refuses chunks out of file order, saying where the lines are", () => {
    const { code, message } = failure(() => apply(file("a", "b", "c"), "@@", "-c", "+C", "@@", "-a", "+A"));
    expect(code).toBe("context_not_found");
    expect(message).toMatch(/^src\/f\.ts: chunk 2 of 2 \(patch line 6\): these lines .* were not found after line 3,/);
    expect(message).toContain("They occur at line 1, before where this chunk is looked for: put chunks in file order");
  });

  it("refuses overlapping chunks: a later chunk cannot reuse the lines of an earlier one", () => {
    const { message } = failure(() => apply(file("a", "b", "c"), "@@", " a", "-b", "+B", "@@", " b", "-c", "+C"));
    expect(message).toContain("were not found after line 2");
    expect(message).toContain("They occur at line 2");
  });

  it("lists at most eight of the lines looked for, each cut short", () => {
    const body = Array.from({ length: 20 }, (_, index) => `-${"long ".repeat(40)}${index}`);
    const { message } = failure(() => apply(file("a"), "@@", ...body));
    expect(message).toContain("… and 12 more lines");
    expect(message.length).toBeLessThan(1600);
  });
});

describe("applyChunks: end of file", () => {
  it("anchors a chunk ending with `*** End of File` at the file's last lines (scenario 022)", () => {
    expect(apply(file("first", "second"), " first", "-second", "+second updated", "*** End of File").text).toBe(
      file("first", "second updated"),
    );
  });

  it("takes the last lines even where the same lines also occur earlier", () => {
    expect(apply(file("x", "y", "x"), "-x", "+z", "*** End of File").text).toBe(file("x", "y", "z"));
  });

  it("refuses lines that do not end the file, saying where they are", () => {
    const { code, message } = failure(() => apply(file("x", "y"), "-x", "+z", "*** End of File"));
    expect(code).toBe("context_not_found");
    expect(message).toContain("were not found at the end of the file (the chunk ends with `*** End of File`)");
    expect(message).toContain("They occur at line 1, which does not end the file");
  });

  it("looks again without empty context lines that end a chunk", () => {
    expect(apply(file("a", "b"), "-b", "+c", "", "*** End of File").text).toBe(file("a", "c"));
    expect(apply(file("a", "b"), " a", "-b", "+c", " ").text).toBe(file("a", "c"));
    // When they do match, they count.
    expect(apply(file("b", "x", "b", ""), "-b", "+c", " ").text).toBe(file("b", "x", "c", ""));
  });
});

describe("applyChunks: line endings", () => {
  it("ends the result with LF when the original did not (scenario 014)", () => {
    expect(apply("no newline at end", "-no newline at end", "+first line", "+second line").text).toBe(
      file("first line", "second line"),
    );
    expect(apply("a\nb", " a", "+c").text).toBe(file("a", "c", "b"));
  });

  it("keeps the CRLF bytes of lines it does not remove, and ends added lines with CRLF in a CRLF file", () => {
    const original = "keep\r\nold\r\ncontext\r\ntail\r\n";
    expect(apply(original, "-old", "+new", " context").text).toBe("keep\r\nnew\r\ncontext\r\ntail\r\n");
  });

  it("matches CRLF lines at the exact level: a final CR belongs to the line ending", () => {
    // Were the CR compared, `foo` would match only with trailing whitespace ignored, and twice.
    expect(apply("foo \r\nfoo\r\n", "-foo", "+bar").text).toBe("foo \r\nbar\r\n");
  });

  it("gives the unterminated last line of a CRLF file a CRLF ending", () => {
    expect(apply("a\r\nb", " a", "+c").text).toBe("a\r\nc\r\nb\r\n");
  });

  it("ends added lines like the file's first line, keeping other lines' endings in a mixed file", () => {
    expect(apply("one\ntwo\r\nthree\r\n", " two", "+added").text).toBe("one\ntwo\r\nadded\nthree\r\n");
    expect(apply("one\r\ntwo\nthree\n", " two", "+added").text).toBe("one\r\ntwo\nadded\r\nthree\n");
  });

  it("keeps a lone CR inside a line as part of its text", () => {
    expect(apply("a\rb\nc\n", " a\rb", "-c", "+d").text).toBe("a\rb\nd\n");
  });
});

describe("applyChunks: bounds", () => {
  it("stays linear on a file built to make naive matching quadratic", () => {
    const lines = Array.from({ length: 200_000 }, () => "a");
    const pattern = [...Array.from({ length: 2_000 }, () => " a"), "-b", "+c"];
    const started = performance.now();
    expect(failure(() => applyChunks(longFile(lines), chunks(...pattern))).code).toBe("context_not_found");
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("applies many chunks to a large file quickly", () => {
    const lines = Array.from({ length: 50_000 }, (_, index) => `line ${index}`);
    const body = Array.from({ length: 500 }, (_, index) => ["@@", `-line ${index * 100}`, `+changed ${index}`]).flat();
    const started = performance.now();
    const result = applyChunks(longFile(lines), chunks(...body));
    expect(result.edits).toBe(500);
    expect(result.text.split("\n")[100]).toBe("changed 1");
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
