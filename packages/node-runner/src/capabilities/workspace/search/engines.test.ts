import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { describeNeeding } from "../../../../../../test-support/system-programs.ts";
import { addEntries, allPages, makeTree, type TestTree } from "../../../../test/support/search-tree.ts";
import { searchWorkspace } from "./search.js";
import type { SearchWorkspaceInput, SearchWorkspacePage } from "./types.js";

let tree: TestTree | undefined;
afterEach(async () => {
  await tree?.remove();
  tree = undefined;
});

/** A tree with every case the engines must agree on. */
function mixedTree(): Record<string, string | Uint8Array> {
  const files: Record<string, string | Uint8Array> = {
    ".gitignore": "*.log\nbuild/\n!keep.log\n",
    ".git/info/exclude": "excluded.txt\n",
    ".git/HEAD": "needle\n",
    "keep.log": "needle kept\n",
    "drop.log": "needle dropped\n",
    "excluded.txt": "needle\n",
    "build/out.txt": "needle\n",
    "src/.gitignore": "local.txt\n",
    "src/local.txt": "needle\n",
    "src/crlf.txt": "needle one\r\nnone\r\nneedle two\r\n",
    "src/ünïcödé/naïve.txt": "café needle ☕\nneedle 😀 end\n",
    "src/invalid.txt": Buffer.from([
      0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0xff, 0xfe, 0x0a, 0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65,
    ]),
    "src/bom.txt": "\uFEFFneedle after a BOM\n",
    "bin/early.dat": Buffer.concat([Buffer.from("needle\n"), Buffer.from([0]), Buffer.from("needle\n")]),
    "bin/late.dat": Buffer.concat([
      Buffer.from("needle\n"),
      Buffer.alloc(9_000, 0x78),
      Buffer.from([0, 0x0a]),
      Buffer.from("needle\n"),
    ]),
    "bin/far.dat": Buffer.concat([
      Buffer.from("needle\n"),
      Buffer.alloc(70_000, 0x0a),
      Buffer.from([0, 0x0a]),
      Buffer.from("needle\n"),
    ]),
    "long/line.txt": `${"a".repeat(100_000)}needle${"é".repeat(300)}\nneedle\n`,
    "long/huge.txt": `${"b".repeat(5 * 1024 * 1024)}needle\nafter needle\n`,
  };
  for (let index = 0; index < 40; index++) {
    files[`many/f${String(index).padStart(2, "0")}.txt`] = Array.from({ length: 30 }, (_, line) =>
      line % 3 === 0 ? `needle ${index}.${line} ${"x".repeat(line * 7)}` : `other ${line}`,
    ).join("\n");
  }
  return files;
}

describeNeeding(["rg"], "the ripgrep engine", () => {
  it("gives the same pages as the built-in engine", async () => {
    tree = await makeTree(mixedTree());
    await addEntries(tree.directory, {
      "links/file": { link: "../keep.log" },
      "links/dir": { link: "../src" },
      "links/outside": { link: join(tree.outside, "secret.txt") },
    });
    execFileSync("mkfifo", [join(tree.directory, "src/pipe")], { stdio: "ignore" });
    const inputs: SearchWorkspaceInput[] = [
      { query: "needle" },
      { query: "needle", path: "src" },
      { query: "needle", glob: "**/*.txt" },
      { query: "needle", path: "long/line.txt" },
      { query: "é needle" },
      { query: "absent text" },
    ];
    for (const input of inputs) {
      for (const maxPageBytes of [1_024, 5_000, 32_768]) {
        const options = { maxPageBytes, maxLineBytes: 64 };
        const builtin = await allPages(tree.root, input, { ...options, engine: "builtin" });
        const viaRipgrep = await allPages(tree.root, input, { ...options, engine: "ripgrep" });
        expect(viaRipgrep, `${JSON.stringify(input)} at ${maxPageBytes}`).toEqual(builtin);
      }
    }
    const all = (await allPages(tree.root, { query: "needle" }, { engine: "ripgrep" })).flatMap((page) => page.hits);
    expect(all.map((hit) => hit.path)).toContain("bin/late.dat");
    expect(all.map((hit) => hit.path)).not.toContain("bin/early.dat");
    expect(all.some((hit) => hit.path.startsWith("links/") || hit.text.includes("outside"))).toBe(false);
  });

  it("continues a built-in engine's cursor, and the other way round", async () => {
    tree = await makeTree(mixedTree());
    const builtin = await allPages(tree.root, { query: "needle" }, { maxPageBytes: 2_048, engine: "builtin" });
    const mixed: SearchWorkspacePage[] = [];
    let offset: string | undefined;
    let turn = 0;
    do {
      const engine = turn++ % 2 === 0 ? "ripgrep" : "builtin";
      const page = await searchWorkspace(tree.root, { query: "needle", offset }, { maxPageBytes: 2_048, engine });
      mixed.push(page);
      offset = page.nextOffset;
    } while (offset !== undefined);
    expect(mixed).toEqual(builtin);
  });
});
