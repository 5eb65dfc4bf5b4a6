import { isToolInputError } from "@castellan/harness";
import { afterEach, describe, expect, it } from "vitest";
import { allHits, locations, makeTree, type TestTree } from "../../../../test/support/search-tree.ts";
import { searchWorkspace } from "./search.js";

let tree: TestTree | undefined;
afterEach(async () => {
  await tree?.remove();
  tree = undefined;
});

describe("a regex search", () => {
  it("matches JavaScript RegExp source per line, with the u flag", async () => {
    tree = await makeTree({
      "a.txt": "needle1\nneeedle22\nnedle\nfoo\n  foo\nÉté\n",
      "b.txt": "final line without LF: needle3",
    });
    const found = async (query: string, ignoreCase = false) =>
      locations(await allHits(tree!.root, { query, regex: true, ignoreCase }));
    expect(await found("ne+dle\\d")).toEqual(["a.txt:1", "a.txt:2", "b.txt:1"]);
    expect(await found("^foo$")).toEqual(["a.txt:4"]);
    expect(await found("^\\p{Lu}\\p{Ll}+$")).toEqual(["a.txt:6"]);
    expect(await found("^éTÉ$", true)).toEqual(["a.txt:6"]);
    expect(await found("^.{3}$")).toEqual(["a.txt:4", "a.txt:6"]);
  });

  it("refuses a pattern that does not compile, naming the reason", async () => {
    tree = await makeTree({ "a.txt": "a\n" });
    for (const query of ["(", "a{1", "\\-"]) {
      const refused = await searchWorkspace(tree.root, { query, regex: true }).catch((error: unknown) => error);
      expect(isToolInputError(refused, "query_invalid"), query).toBe(true);
    }
  });

  it("matches a regex in a line longer than the buffer", async () => {
    tree = await makeTree({ "long.txt": `${"x".repeat(200_000)}needle42${"y".repeat(1_000)}\nnext\n` });
    const hits = await allHits(tree.root, { query: "needle\\d+y", regex: true });
    expect(hits).toEqual([{ path: "long.txt", line: 1, text: "x".repeat(512), textTruncated: true }]);
  });

  it("times out a catastrophic pattern, keeping the hits found and continuing after the file", async () => {
    tree = await makeTree({
      "a.txt": "aaaa\n",
      "b.txt": `${"a".repeat(40)}!\n`,
      "c.txt": "aaa\n",
    });
    const started = Date.now();
    const page = await searchWorkspace(tree.root, { query: "(a+)+$", regex: true }, { searchTimeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(page.timedOut).toBe(true);
    expect(page.truncated).toBe(true);
    expect(locations(page.hits)).toEqual(["a.txt:1"]);
    const rest = await searchWorkspace(tree.root, { query: "(a+)+$", regex: true, offset: page.nextOffset });
    expect(rest).toMatchObject({ hits: [{ path: "c.txt", line: 1, text: "aaa" }], truncated: false, timedOut: false });
  });
});
