import { execFileSync } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { isToolInputError } from "@castellan/harness";
import { afterEach, describe, expect, it } from "vitest";
import { addEntries, allHits, locations, makeTree, type TestTree } from "../../../../test/support/search-tree.ts";
import { searchWorkspace } from "./search.js";

let tree: TestTree | undefined;

function mkfifo(path: string): void {
  execFileSync("mkfifo", [path], { stdio: "ignore" });
}
afterEach(async () => {
  await tree?.remove();
  tree = undefined;
});

async function found(input: { query: string; glob?: string; path?: string }): Promise<string[]> {
  return locations(await allHits(tree!.root, input));
}

describe("the walk", () => {
  it("visits entries depth first in UTF-8 byte order of name", async () => {
    tree = await makeTree({
      "b.txt": "hit\n",
      "a/z.txt": "hit\n",
      "a.txt": "hit\n",
      "A.txt": "hit\n",
      "a/b/c.txt": "hit\n",
      "\u{1F600}.txt": "hit\n",
      "\uFFFD.txt": "hit\n",
      "é.txt": "hit\n",
    });
    expect(await found({ query: "hit" })).toEqual([
      "A.txt:1",
      "a/b/c.txt:1",
      "a/z.txt:1",
      "a.txt:1",
      "b.txt:1",
      "é.txt:1",
      "\uFFFD.txt:1",
      "\u{1F600}.txt:1",
    ]);
  });

  it("respects the root's and nested .gitignore files, negations and .git/info/exclude", async () => {
    tree = await makeTree({
      ".gitignore": "*.log\nbuild/\n!keep.log\n/rooted.txt\n",
      ".git/info/exclude": "excluded.txt\n",
      ".git/config": "hit\n",
      "a.log": "hit\n",
      "keep.log": "hit\n",
      "rooted.txt": "hit\n",
      "excluded.txt": "hit\n",
      "build/out.txt": "hit\n",
      "src/rooted.txt": "hit\n",
      "src/build/out.txt": "hit\n",
      "src/.gitignore": "local.txt\n!a.log\n",
      "src/local.txt": "hit\n",
      "src/a.log": "hit\n",
      "src/deep/local.txt": "hit\n",
      "other/local.txt": "hit\n",
    });
    expect(await found({ query: "hit" })).toEqual([
      "keep.log:1",
      "other/local.txt:1",
      "src/a.log:1",
      "src/rooted.txt:1",
    ]);
  });

  it("cannot re-include a file whose directory is excluded", async () => {
    tree = await makeTree({
      ".gitignore": "vendor/\n!vendor/keep.txt\n",
      "vendor/keep.txt": "hit\n",
      "vendor/.gitignore": "!keep.txt\n",
    });
    expect(await found({ query: "hit" })).toEqual([]);
  });

  it("applies the rules above a start directory, and searches an ignored directory named as the path", async () => {
    tree = await makeTree({
      ".gitignore": "*.tmp\nvendor/\n",
      "src/a.tmp": "hit\n",
      "src/a.txt": "hit\n",
      "vendor/lib.txt": "hit\n",
    });
    expect(await found({ query: "hit", path: "src" })).toEqual(["src/a.txt:1"]);
    expect(await found({ query: "hit", path: "vendor" })).toEqual(["vendor/lib.txt:1"]);
  });

  it("skips .git at any depth, and a .git file", async () => {
    tree = await makeTree({ ".git/HEAD": "hit\n", "sub/.git/HEAD": "hit\n", "wt/.git": "hit\n", "wt/a.txt": "hit\n" });
    expect(await found({ query: "hit" })).toEqual(["wt/a.txt:1"]);
  });

  it("skips a file with a NUL in its first 8 KiB, but not one with a NUL later", async () => {
    const late = Buffer.concat([
      Buffer.from("hit\n"),
      Buffer.alloc(9_000, "x"),
      Buffer.from([0]),
      Buffer.from("\nhit\n"),
    ]);
    tree = await makeTree({
      "bin.dat": Buffer.from([0x68, 0x69, 0x74, 0x0a, 0x00, 0x01]),
      "late.dat": late,
      "text.txt": "hit\n",
    });
    const page = await searchWorkspace(tree.root, { query: "hit" });
    expect(locations(page.hits)).toEqual(["late.dat:1", "late.dat:3", "text.txt:1"]);
    expect(page.filesScanned).toBe(3);
  });

  it("follows no symbolic link, to a file or a directory, inside or outside the root", async () => {
    tree = await makeTree({ "real/a.txt": "needle\n" });
    const { outside } = tree;
    await mkdir(join(tree.directory, "links"));
    await addEntries(tree.directory, {
      "links/file-in": { link: "../real/a.txt" },
      "links/dir-in": { link: "../real" },
      "links/file-out": { link: join(outside, "secret.txt") },
      "links/dir-out": { link: outside },
      "links/dangling": { link: "nowhere" },
      "links/loop": { link: "loop" },
    });
    tree.log.calls.length = 0;
    expect(await found({ query: "needle" })).toEqual(["real/a.txt:1"]);
    const touched = tree.log.calls.filter((call) => call.path.includes("/links/"));
    expect(touched).toEqual([]);
    expect(tree.log.calls.some((call) => call.path.startsWith(outside))).toBe(false);
  });

  it("never opens a FIFO, so one in the tree does not block", async () => {
    tree = await makeTree({ "a.txt": "needle\n" });
    mkfifo(join(tree.directory, "pipe"));
    mkfifo(join(tree.directory, ".gitignore"));
    expect(await found({ query: "needle" })).toEqual(["a.txt:1"]);
    expect(tree.log.calls.filter((call) => call.operation === "open" && call.path.endsWith("/pipe"))).toEqual([]);
  });

  it("matches globs against the root-relative path", async () => {
    tree = await makeTree({
      "a.ts": "hit\n",
      "src/b.ts": "hit\n",
      "src/deep/c.ts": "hit\n",
      "src/.hidden.ts": "hit\n",
      "src/d.js": "hit\n",
      "x{a,b}.txt": "hit\n",
      "q1.md": "hit\n",
    });
    expect(await found({ query: "hit", glob: "*.ts" })).toEqual(["a.ts:1"]);
    expect(await found({ query: "hit", glob: "**/*.ts" })).toEqual([
      "a.ts:1",
      "src/.hidden.ts:1",
      "src/b.ts:1",
      "src/deep/c.ts:1",
    ]);
    expect(await found({ query: "hit", glob: "src/*.[jt]s" })).toEqual([
      "src/.hidden.ts:1",
      "src/b.ts:1",
      "src/d.js:1",
    ]);
    expect(await found({ query: "hit", glob: "q?.md" })).toEqual(["q1.md:1"]);
    // Braces are not syntax: they match themselves.
    expect(await found({ query: "hit", glob: "x{a,b}.txt" })).toEqual(["x{a,b}.txt:1"]);
    expect(await found({ query: "hit", glob: "src/**" })).toHaveLength(4);
  });

  it("refuses a bad glob", async () => {
    tree = await makeTree({ "a.txt": "hit\n" });
    for (const glob of ["[abc", ""]) {
      const refused = await searchWorkspace(tree.root, { query: "hit", glob }).catch((error: unknown) => error);
      expect(isToolInputError(refused, "glob_invalid")).toBe(true);
    }
  });
});

describe("the path", () => {
  it("may name one file, which is searched even if ignored", async () => {
    tree = await makeTree({ ".gitignore": "*.log\n", "a.log": "one hit\nhit two\n", "b.txt": "hit\n" });
    expect(await found({ query: "hit", path: "a.log" })).toEqual(["a.log:1", "a.log:2"]);
  });

  it("refuses a path through a link, a path that is a link, a missing path and a bad one", async () => {
    tree = await makeTree({ "real/a.txt": "hit\n" });
    await addEntries(tree.directory, { link: { link: "real" }, "file-link": { link: "real/a.txt" } });
    const cases: [string, string][] = [
      ["link/a.txt", "path_through_symlink"],
      ["link", "path_is_symlink"],
      ["file-link", "path_is_symlink"],
      ["missing", "path_not_found"],
      ["../root", "path_invalid"],
      ["/etc", "path_invalid"],
    ];
    for (const [path, code] of cases) {
      const refused = await searchWorkspace(tree.root, { query: "hit", path }).catch((error: unknown) => error);
      expect(isToolInputError(refused, code), `${path}: ${String(refused)}`).toBe(true);
    }
  });

  it("refuses a FIFO as the path", async () => {
    tree = await makeTree({});
    mkfifo(join(tree.directory, "pipe"));
    const refused = await searchWorkspace(tree.root, { query: "hit", path: "pipe" }).catch((error: unknown) => error);
    expect(isToolInputError(refused, "not_regular_file")).toBe(true);
  });
});
