import { isToolInputError } from "@castellan/harness";
import { describe, expect, it } from "vitest";
import { listPatchOperations } from "./list-operations.js";
import { parsePatch } from "./parse.js";
import type { PatchChunk, PatchOperation, UpdateFileOperation } from "./types.js";

/** The patch text with `*** Begin Patch` and `*** End Patch` around `body` lines. */
function patch(...body: string[]): string {
  return ["*** Begin Patch", ...body, "*** End Patch", ""].join("\n");
}

function operations(text: string): readonly PatchOperation[] {
  return parsePatch(text).operations;
}

function onlyUpdate(text: string): UpdateFileOperation {
  const [operation, ...rest] = operations(text);
  expect(rest).toEqual([]);
  if (operation?.type !== "update") throw new Error(`expected one update, got ${JSON.stringify(operation)}`);
  return operation;
}

function chunksOf(...body: string[]): readonly PatchChunk[] {
  return onlyUpdate(patch("*** Update File: a.txt", ...body)).chunks;
}

/** The `patch_invalid` message parsing `text` fails with. */
function refusal(text: string): string {
  try {
    parsePatch(text);
  } catch (error) {
    if (isToolInputError(error, "patch_invalid")) return error.message;
    throw error;
  }
  throw new Error("expected a patch_invalid refusal, but the patch parsed");
}

describe("parsePatch: operations", () => {
  it("reads Add, Delete and Update sections in order, with the header line of each", () => {
    const text = patch(
      "*** Add File: docs/new.md",
      "+# Title",
      "+",
      "+text",
      "*** Delete File: old.txt",
      "*** Update File: src/a.ts",
      "*** Move to: src/b.ts",
      "@@ function run() {",
      " const a = 1;",
      "-const b = 2;",
      "+const b = 3;",
    );
    expect(operations(text)).toEqual([
      { type: "add", path: "docs/new.md", contents: "# Title\n\ntext\n", line: 2 },
      { type: "delete", path: "old.txt", line: 6 },
      {
        type: "update",
        path: "src/a.ts",
        moveTo: "src/b.ts",
        line: 7,
        chunks: [
          {
            anchors: ["function run() {"],
            lines: [
              { type: "context", text: "const a = 1;" },
              { type: "removed", text: "const b = 2;" },
              { type: "added", text: "const b = 3;" },
            ],
            endOfFile: false,
            line: 9,
          },
        ],
      },
    ]);
  });

  it("makes an empty file from an Add File section without lines", () => {
    expect(operations(patch("*** Add File: empty.txt", "*** Delete File: x"))).toEqual([
      { type: "add", path: "empty.txt", contents: "", line: 2 },
      { type: "delete", path: "x", line: 3 },
    ]);
  });

  it("keeps the text after `+` as it is, including spaces and marker-like text", () => {
    const [add] = operations(patch("*** Add File: a", "+  indented ", "+*** End Patch", "+-minus"));
    expect(add).toMatchObject({ contents: "  indented \n*** End Patch\n-minus\n" });
  });

  it("reads a blank line between `+` lines as an empty line, and blank lines after them as separators", () => {
    const text = patch("*** Add File: a", "+one", "", "  ", "+two", "", "", "*** Delete File: b", "");
    expect(operations(text)).toEqual([
      { type: "add", path: "a", contents: "one\n\n\ntwo\n", line: 2 },
      { type: "delete", path: "b", line: 9 },
    ]);
  });

  it("returns paths as written, trimmed, without checking them", () => {
    const text = patch("*** Add File:   ../outside/x y.txt  ", "+a", "*** Delete File:/abs/path");
    expect(listPatchOperations(parsePatch(text))).toEqual([
      { path: "../outside/x y.txt", operation: "add" },
      { path: "/abs/path", operation: "delete" },
    ]);
  });

  it("skips blank lines between sections and before an Update's first chunk", () => {
    const text = patch("", "*** Delete File: a", "", "   ", "*** Update File: b", "", "*** Move to: c", "", "@@", "-x");
    expect(listPatchOperations(parsePatch(text))).toEqual([
      { path: "a", operation: "delete" },
      { path: "b", operation: "move", to: "c" },
    ]);
  });
});

describe("parsePatch: markers and wrappers", () => {
  it("accepts markers and headers padded with spaces and tabs", () => {
    const text = ["  *** Begin Patch\t", " \t*** Update File: a.txt  ", "\t*** Move to: b.txt ", "@@", "-x", "+y"];
    text.push("*** End of File ", " *** End Patch  ");
    const update = onlyUpdate(text.join("\n"));
    expect(update).toMatchObject({ path: "a.txt", moveTo: "b.txt" });
    expect(update.chunks[0]?.endOfFile).toBe(true);
  });

  it("ignores blank lines before the first marker and after the last, and a missing final LF", () => {
    const text = "\n  \n*** Begin Patch\n*** Delete File: a\n*** End Patch\n\n\t\n";
    expect(operations(text)).toEqual([{ type: "delete", path: "a", line: 4 }]);
    expect(operations("*** Begin Patch\n*** Delete File: a\n*** End Patch")).toHaveLength(1);
  });

  it("reads a patch sent with CRLF line breaks like one with LF", () => {
    const text = patch("*** Update File: a.txt", "@@ anchor", " keep", "-old", "+new").replaceAll("\n", "\r\n");
    expect(onlyUpdate(text).chunks[0]).toEqual({
      anchors: ["anchor"],
      lines: [
        { type: "context", text: "keep" },
        { type: "removed", text: "old" },
        { type: "added", text: "new" },
      ],
      endOfFile: false,
      line: 3,
    });
  });

  it.each(["<<EOF", "<<'EOF'", '<<"EOF"'])("unwraps a heredoc opened with %s", (opener) => {
    const text = `${opener}\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n`;
    expect(operations(text)).toEqual([{ type: "delete", path: "a", line: 3 }]);
  });

  it("refuses a heredoc that does not hold a patch, and other wrappers", () => {
    expect(refusal("<<EOF\n*** Delete File: a\n*** End Patch\nEOF")).toMatch(/^line 2: a patch starts with/);
    expect(refusal("<<END\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEND")).toMatch(/^line 1: /);
    expect(refusal("```\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n```")).toMatch(/^line 1: .*"```"/);
  });
});

describe("parsePatch: chunks", () => {
  it("lets the first chunk omit `@@`, and later ones start with it", () => {
    const chunks = chunksOf(" first", "+added", "@@", "-second", "@@ third", "+after third");
    expect(chunks.map((chunk) => [chunk.anchors, chunk.lines.length, chunk.line])).toEqual([
      [[], 2, 3],
      [[], 1, 5],
      [["third"], 1, 7],
    ]);
  });

  it("keeps the anchor's text after `@@ ` as written, and reads several `@@` lines as a chain", () => {
    const chunks = chunksOf("@@ class Runner", "@@     def run(self):", "@@", "-        pass");
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.anchors).toEqual(["class Runner", "    def run(self):"]);
  });

  it("reads a unified-diff hunk header as `@@` with its section text as the anchor", () => {
    const chunks = chunksOf("@@ -12,7 +12,8 @@ def main():", "-a", "@@ -1 +1 @@", "-b", "@@ -3,0 +4,2 @@  ", "-c");
    expect(chunks.map((chunk) => chunk.anchors)).toEqual([["def main():"], [], []]);
  });

  it("reads a bare `@@` with trailing spaces as no anchor", () => {
    expect(chunksOf("@@   ", "-a")[0]?.anchors).toEqual([]);
  });

  it("reads an empty line inside a chunk as an empty context line, as Codex does", () => {
    const [chunk] = chunksOf("@@", " one", "", "\t", " \t", "-two");
    expect(chunk?.lines).toEqual([
      { type: "context", text: "one" },
      { type: "context", text: "" },
      { type: "context", text: "" },
      { type: "context", text: "\t" },
      { type: "removed", text: "two" },
    ]);
  });

  it("drops blank lines that end a chunk before `@@`, another section or the end", () => {
    const text = patch("*** Update File: a", "-one", "", "@@", "-two", "", "*** Update File: b", "-three", "", "");
    const [first, second] = operations(text) as UpdateFileOperation[];
    expect(first?.chunks.map((chunk) => chunk.lines.length)).toEqual([1, 1]);
    expect(second?.chunks[0]?.lines).toEqual([{ type: "removed", text: "three" }]);
  });

  it("keeps blank lines before `*** End of File` as context lines", () => {
    const [chunk] = chunksOf("-last", "", "*** End of File");
    expect(chunk).toMatchObject({ endOfFile: true, lines: [{ type: "removed" }, { type: "context", text: "" }] });
  });

  it("marks a chunk followed by `*** End of File`, and starts the next chunk at `@@`", () => {
    const chunks = chunksOf("@@", "-a", "*** End of File", "@@ b", "+c");
    expect(chunks.map((chunk) => chunk.endOfFile)).toEqual([true, false]);
  });

  it("reads a line starting with a space as context even when it looks like a marker", () => {
    const [chunk] = chunksOf("@@", " *** End Patch", " *** Add File: x", "-@@", "+*** End of File");
    expect(chunk?.lines.map((line) => line.text)).toEqual([
      "*** End Patch",
      "*** Add File: x",
      "@@",
      "*** End of File",
    ]);
    expect(chunk?.endOfFile).toBe(false);
  });

  it("ends an Update at the next header, and reads a space-padded one after chunk lines as context, as Codex does", () => {
    const text = patch(
      "*** Update File: a",
      "@@",
      "-x",
      "\t*** Add File: b",
      "+y",
      "*** Update File: c",
      "-z",
      " *** Add File: d",
    );
    const [first, add, last] = operations(text);
    expect(listPatchOperations({ operations: [first!, add!] })).toEqual([
      { path: "a", operation: "update" },
      { path: "b", operation: "add" },
    ]);
    expect((last as UpdateFileOperation).chunks[0]?.lines).toEqual([
      { type: "removed", text: "z" },
      { type: "context", text: "*** Add File: d" },
    ]);
  });
});

describe("parsePatch: refusals (patch_invalid, naming the line)", () => {
  it("refuses empty text", () => {
    expect(refusal("")).toMatch(/^The patch is empty\./);
    expect(refusal(" \n\t\n")).toMatch(/^The patch is empty\./);
  });

  it("refuses text that does not start with `*** Begin Patch`", () => {
    expect(refusal("\n*** Update File: a\n@@\n-x\n*** End Patch")).toMatch(
      /^line 2: a patch starts with a `\*\*\* Begin Patch` line, but this is "\*\*\* Update File: a"\./,
    );
  });

  it("refuses a patch cut short before `*** End Patch`", () => {
    expect(refusal("*** Begin Patch\n*** Add File: a\n+one\n+tw")).toMatch(
      /^line 4: a patch ends with an `\*\*\* End Patch` line, but the last line is "\+tw"\. If the patch was cut short, send all of it again/,
    );
    expect(refusal("*** Begin Patch\n")).toMatch(/^line 1: a patch ends with/);
  });

  it("refuses a patch without operations (scenario 005)", () => {
    expect(refusal("*** Begin Patch\n*** End Patch\n")).toMatch(/^line 2: the patch has no operations/);
    expect(refusal("*** Begin Patch\n\n\n*** End Patch")).toMatch(/^line 4: the patch has no operations/);
  });

  it("refuses the whole patch for an unknown header (scenario 013)", () => {
    const message = refusal(patch("*** Add File: fine.txt", "+ok", "*** Frobnicate File: foo"));
    expect(message).toMatch(
      /^line 4: "\*\*\* Frobnicate File: foo" is not a known header, so the whole patch was refused\./,
    );
    expect(message).toContain("`*** Add File: <path>`, `*** Update File: <path>` or `*** Delete File: <path>`");
    expect(refusal(patch("*** add file: a", "+x"))).toMatch(/^line 2: .* is not a known header/);
  });

  it("refuses an Update without chunks (scenario 008)", () => {
    expect(refusal(patch("*** Update File: foo.txt"))).toMatch(
      /^line 2: `\*\*\* Update File: foo\.txt` has no chunks\./,
    );
    expect(refusal(patch("*** Update File: a", "*** Move to: b", "", "*** Delete File: c"))).toMatch(
      /^line 2: .*no chunks/,
    );
  });

  it("refuses a chunk without lines", () => {
    expect(refusal(patch("*** Update File: a", "@@ anchor"))).toMatch(/^line 3: this chunk has no lines\./);
    expect(refusal(patch("*** Update File: a", "@@", "", "@@", "-x"))).toMatch(/^line 3: this chunk has no lines\./);
    expect(refusal(patch("*** Update File: a", "@@", "*** End of File"))).toMatch(/^line 3: this chunk has no lines/);
  });

  it("refuses a line without a chunk prefix inside an Update", () => {
    const message = refusal(patch("*** Update File: a", "@@", " context", "forgot the prefix", "+x"));
    expect(message).toMatch(
      /^line 5: "forgot the prefix" is not a chunk line\. In an Update File section, start each line/,
    );
    expect(refusal(patch("*** Update File: a", "plain"))).toMatch(/^line 3: "plain" is not a chunk line/);
  });

  it("refuses `@@` run into its text, and chunk lines after `*** End of File` without `@@`", () => {
    expect(refusal(patch("*** Update File: a", "@@anchor", "-x"))).toMatch(/^line 3: "@@anchor" is not a chunk header/);
    expect(refusal(patch("*** Update File: a", "-x", "*** End of File", "-y"))).toMatch(
      /^line 5: after `\*\*\* End of File`, start the next chunk with `@@`/,
    );
  });

  it("refuses markers out of place", () => {
    expect(refusal(patch("*** Update File: a", "*** End of File"))).toMatch(
      /^line 3: `\*\*\* End of File` must follow/,
    );
    expect(refusal(patch("*** End of File"))).toMatch(/^line 2: `\*\*\* End of File` must follow/);
    expect(refusal(patch("*** Delete File: a", "*** Move to: b"))).toMatch(
      /^line 3: `\*\*\* Move to:` must come right after/,
    );
    expect(refusal(patch("*** Delete File: a", "*** Begin Patch"))).toMatch(/^line 3: a second `\*\*\* Begin Patch`/);
    expect(refusal(patch("*** Delete File: a", "*** End Patch", "*** Delete File: b"))).toMatch(
      /^line 3: `\*\*\* End Patch` before the patch's last line/,
    );
  });

  it("refuses a header without a path", () => {
    expect(refusal(patch("*** Add File:  ", "+x"))).toMatch(/^line 2: `\*\*\* Add File:` names no file\./);
    expect(refusal(patch("*** Delete File:"))).toMatch(/^line 2: `\*\*\* Delete File:` names no file/);
    expect(refusal(patch("*** Update File: a", "*** Move to:", "-x"))).toMatch(
      /^line 3: `\*\*\* Move to:` names no file/,
    );
  });

  it("refuses stray lines between sections, with a hint from the section before", () => {
    expect(refusal(patch("*** Add File: a", "+one", "two"))).toMatch(
      /^line 4: expected an operation header .*, found "two"\. Every line of an `\*\*\* Add File:` section starts with `\+`\./,
    );
    expect(refusal(patch("*** Delete File: a", "-gone"))).toMatch(
      /^line 3: expected an operation header .* A `\*\*\* Delete File:` section has no lines after its header\./,
    );
    expect(refusal(patch("stray"))).toMatch(/^line 2: expected an operation header .*, found "stray"\.$/);
  });

  it("quotes long lines cut short, so a message stays small", () => {
    const message = refusal(patch(`*** Bogus ${"x".repeat(5000)}`));
    expect(message.length).toBeLessThan(400);
    expect(message).toContain("…");
  });
});

describe("listPatchOperations", () => {
  it("lists each operation's path and kind in order, a move with its destination", () => {
    const text = patch(
      "*** Update File: a",
      "-x",
      "*** Update File: b",
      "*** Move to: c/d",
      "-y",
      "*** Add File: e",
      "*** Delete File: f",
      "*** Delete File: a",
    );
    expect(listPatchOperations(parsePatch(text))).toEqual([
      { path: "a", operation: "update" },
      { path: "b", operation: "move", to: "c/d" },
      { path: "e", operation: "add" },
      { path: "f", operation: "delete" },
      { path: "a", operation: "delete" },
    ]);
  });
});
