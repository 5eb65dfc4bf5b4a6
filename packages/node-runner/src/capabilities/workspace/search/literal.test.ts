import { isToolInputError } from "@castellan/harness";
import { afterEach, describe, expect, it } from "vitest";
import { allHits, locations, makeTree, type TestTree } from "../../../../test/support/search-tree.ts";
import { searchWorkspace } from "./search.js";

let tree: TestTree | undefined;
afterEach(async () => {
  await tree?.remove();
  tree = undefined;
});

const chunk = 65_536;

describe("a literal search", () => {
  it("finds each matching line once, with 1-based line numbers and the line's text", async () => {
    tree = await makeTree({
      "a.txt": "alpha\nneedle one\nbeta\nneedle needle twice\n",
      "b/c.txt": "no\nstill no\nthe needle\n",
      "d.txt": "nothing here\n",
    });
    const page = await searchWorkspace(tree.root, { query: "needle" });
    expect(page).toEqual({
      hits: [
        { path: "a.txt", line: 2, text: "needle one" },
        { path: "a.txt", line: 4, text: "needle needle twice" },
        { path: "b/c.txt", line: 3, text: "the needle" },
      ],
      filesScanned: 3,
      truncated: false,
      timedOut: false,
    });
  });

  it("is case-sensitive by default and keeps a CR before the LF", async () => {
    tree = await makeTree({ "crlf.txt": "Needle\r\nneedle\r\nlast needle" });
    const page = await searchWorkspace(tree.root, { query: "needle" });
    expect(page.hits).toEqual([
      { path: "crlf.txt", line: 2, text: "needle\r" },
      { path: "crlf.txt", line: 3, text: "last needle" },
    ]);
  });

  it("finds a literal split between two reads of the 64 KiB buffer", async () => {
    const lines = `${"x".repeat(99)}\n`.repeat(Math.floor(chunk / 100));
    // Pad so "needle" starts 3 bytes before the first chunk ends.
    const pad = "y".repeat(chunk - lines.length - 3);
    tree = await makeTree({ "edge.txt": `${lines}${pad}needle tail\nafter\n` });
    const hits = await allHits(tree.root, { query: "needle" });
    expect(locations(hits)).toEqual([`edge.txt:${Math.floor(chunk / 100) + 1}`]);
    expect(hits[0]!.text.endsWith("needle tail")).toBe(true);
  });

  it("finds a literal split between two reads inside a line longer than half the buffer", async () => {
    for (const offset of [1, 3, 5]) {
      tree = await makeTree({ "edge.txt": `${"a".repeat(chunk - offset)}needle\n` });
      expect(locations(await allHits(tree.root, { query: "needle" }))).toEqual(["edge.txt:1"]);
      await tree.remove();
      tree = undefined;
    }
  });

  it("finds a literal far into a line longer than the buffer, keeping only the line's start", async () => {
    const long = `${"a".repeat(3 * chunk + 17)}needle${"b".repeat(chunk)}`;
    tree = await makeTree({ "long.txt": `first\n${long}\nneedle after\n` });
    const hits = await allHits(tree.root, { query: "needle" });
    expect(hits).toEqual([
      { path: "long.txt", line: 2, text: "a".repeat(512), textTruncated: true },
      { path: "long.txt", line: 3, text: "needle after" },
    ]);
  });

  it("searches a 10 MB single-line file", async () => {
    const size = 10 * 1024 * 1024;
    const bytes = Buffer.alloc(size, "z");
    bytes.write("needle", size - 100);
    tree = await makeTree({ "huge.txt": bytes });
    const hits = await allHits(tree.root, { query: "needle" });
    expect(hits).toEqual([{ path: "huge.txt", line: 1, text: "z".repeat(512), textTruncated: true }]);
    // Read through the fixed buffer: the file once, nothing more.
    expect(tree.log.bytesRead).toBeLessThan(size + 2 * chunk);
  });

  it("cuts a long line's text at a character boundary", async () => {
    // "é" is 2 bytes: 511 ASCII bytes put one across the 512-byte limit.
    tree = await makeTree({ "cut.txt": `${"a".repeat(511)}é needle\n${"a".repeat(510)}é needle\n` });
    const hits = await allHits(tree.root, { query: "needle" });
    expect(hits).toEqual([
      { path: "cut.txt", line: 1, text: "a".repeat(511), textTruncated: true },
      { path: "cut.txt", line: 2, text: `${"a".repeat(510)}é`, textTruncated: true },
    ]);
  });

  it("honours maxLineBytes", async () => {
    tree = await makeTree({ "m.txt": "0123456789 needle 0123456789\n" });
    const page = await searchWorkspace(tree.root, { query: "needle" }, { maxLineBytes: 16 });
    expect(page.hits).toEqual([{ path: "m.txt", line: 1, text: "0123456789 needl", textTruncated: true }]);
  });

  it("shows invalid UTF-8 as U+FFFD", async () => {
    tree = await makeTree({ "bad.txt": Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x20, 0xff, 0xc3, 0x0a]) });
    const page = await searchWorkspace(tree.root, { query: "needle" });
    expect(page.hits).toEqual([{ path: "bad.txt", line: 1, text: "needle \uFFFD\uFFFD" }]);
  });

  it("matches multi-byte and multi-word literals as given", async () => {
    tree = await makeTree({ "u.txt": "naïve café\nnaive cafe\nzwei Wörter hier\n" });
    expect(locations(await allHits(tree.root, { query: "café" }))).toEqual(["u.txt:1"]);
    expect(locations(await allHits(tree.root, { query: "Wörter hier" }))).toEqual(["u.txt:3"]);
  });

  it("refuses an empty query and a literal with a line break", async () => {
    tree = await makeTree({ "a.txt": "a\n" });
    for (const query of ["", "a\nb"]) {
      const refused = await searchWorkspace(tree.root, { query }).catch((error: unknown) => error);
      expect(isToolInputError(refused, "query_invalid")).toBe(true);
    }
  });
});

describe("ignoreCase", () => {
  it("folds case by Unicode simple case folding", async () => {
    tree = await makeTree({ "c.txt": "NEEDLE\nNeedle\nneedle\nÉCOLE\nπΣ\nnothing\n" });
    expect(locations(await allHits(tree.root, { query: "needle", ignoreCase: true }))).toEqual([
      "c.txt:1",
      "c.txt:2",
      "c.txt:3",
    ]);
    expect(locations(await allHits(tree.root, { query: "école", ignoreCase: true }))).toEqual(["c.txt:4"]);
    expect(locations(await allHits(tree.root, { query: "πσ", ignoreCase: true }))).toEqual(["c.txt:5"]);
  });

  it("treats the query as a literal, not a pattern", async () => {
    tree = await makeTree({ "p.txt": "a.b\naxb\n(x)\n" });
    expect(locations(await allHits(tree.root, { query: "A.B", ignoreCase: true }))).toEqual(["p.txt:1"]);
    expect(locations(await allHits(tree.root, { query: "(X)", ignoreCase: true }))).toEqual(["p.txt:3"]);
  });

  it("finds a match across a chunk edge inside a line longer than the buffer", async () => {
    const before = "q".repeat(chunk - 3);
    tree = await makeTree({ "l.txt": `${before}NeEdLe${"r".repeat(chunk)}\nnext\n` });
    const hits = await allHits(tree.root, { query: "needle", ignoreCase: true });
    expect(hits).toEqual([{ path: "l.txt", line: 1, text: "q".repeat(512), textTruncated: true }]);
  });

  it("numbers lines across chunks", async () => {
    const filler = "filler line\n".repeat(20_000);
    tree = await makeTree({ "n.txt": `${filler}NEEDLE\n${filler}needle` });
    expect(locations(await allHits(tree.root, { query: "needle", ignoreCase: true }))).toEqual([
      "n.txt:20001",
      "n.txt:40002",
    ]);
    expect(locations(await allHits(tree.root, { query: "NEEDLE" }))).toEqual(["n.txt:20001"]);
  });
});
