import { isToolInputError } from "@castellan/harness";
import { afterEach, describe, expect, it } from "vitest";
import { allHits, allPages, locations, makeTree, type TestTree } from "../../../../test/support/search-tree.ts";
import { nodeWorkspaceOperations, type WorkspaceOperations } from "../../../platform/paths/operations.js";
import { searchWorkspace } from "./search.js";
import type { SearchWorkspacePage } from "./types.js";

let tree: TestTree | undefined;
afterEach(async () => {
  await tree?.remove();
  tree = undefined;
});

/** A few files of many hits, some long, some not ASCII, with ignored and binary files between. */
function manyHits(): Record<string, string | Uint8Array> {
  const files: Record<string, string | Uint8Array> = { ".gitignore": "skip/\n" };
  for (let file = 0; file < 6; file++) {
    const lines: string[] = [];
    for (let line = 0; line < 120; line++) {
      const text =
        line % 7 === 0 ? `needle ${"é".repeat(400)}` : line % 3 === 0 ? `plain ${line}` : `needle ${file}.${line} ünï`;
      lines.push(text);
    }
    files[`d${file % 2}/f${file}.txt`] = `${lines.join("\n")}\n`;
  }
  files["skip/x.txt"] = "needle\n";
  files["d0/bin.dat"] = Buffer.from("needle\n\0");
  return files;
}

function bytesOf(page: SearchWorkspacePage): number {
  return Buffer.byteLength(JSON.stringify(page));
}

describe("paging", () => {
  it("keeps every page within maxPageBytes, and the pages concatenate to the whole result", async () => {
    tree = await makeTree(manyHits());
    const whole = await searchWorkspace(tree.root, { query: "needle" }, { maxPageBytes: 1_048_576 });
    expect(whole.truncated).toBe(false);
    expect(whole.nextOffset).toBeUndefined();
    const expected = Object.entries(manyHits())
      .filter(([path]) => path.endsWith(".txt") && !path.startsWith("skip/"))
      .map(
        ([, text]) =>
          String(text)
            .split("\n")
            .filter((line) => line.includes("needle")).length,
      );
    expect(whole.hits.length).toBe(expected.reduce((sum, count) => sum + count, 0));
    for (const maxPageBytes of [1_024, 4_000, 32_768]) {
      const pages = await allPages(tree.root, { query: "needle" }, { maxPageBytes });
      expect(pages.length).toBeGreaterThan(1);
      for (const page of pages) expect(bytesOf(page)).toBeLessThanOrEqual(maxPageBytes);
      for (const page of pages.slice(0, -1)) {
        expect(page.truncated).toBe(true);
        expect(typeof page.nextOffset).toBe("string");
        expect(page.hits.length).toBeGreaterThan(0);
      }
      expect(pages.at(-1)!.truncated).toBe(false);
      expect(pages.at(-1)!.nextOffset).toBeUndefined();
      expect(pages.flatMap((page) => page.hits)).toEqual(whole.hits);
    }
  });

  it("fills a page nearly to the limit", async () => {
    tree = await makeTree(manyHits());
    const pages = await allPages(tree.root, { query: "needle" }, { maxPageBytes: 4_000 });
    // A full page leaves less room than one more hit (the longest is under 1 KiB as JSON).
    for (const page of pages.slice(0, -1)) expect(bytesOf(page)).toBeGreaterThan(4_000 - 1_100);
  });

  it("continues without opening or listing anything before the cursor again", async () => {
    tree = await makeTree(manyHits());
    const log = tree.log;
    const order = ["d0/bin.dat", "d0/f0.txt", "d0/f2.txt", "d0/f4.txt", "d1/f1.txt", "d1/f3.txt", "d1/f5.txt"];
    let offset: string | undefined;
    let pages = 0;
    do {
      log.calls.length = 0;
      const page = await searchWorkspace(tree.root, { query: "needle", offset }, { maxPageBytes: 8_192 });
      const opened = log.calls
        .filter(
          (call) => call.operation === "open" && !call.path.endsWith("/.gitignore") && !call.path.includes("/.git/"),
        )
        .map((call) => call.path.slice(tree!.directory.length + 1));
      const listed = log.calls.filter((call) => call.operation === "readdir").map((call) => call.path);
      if (pages > 0) {
        // The page starts in the file of its first hit (where the cursor pointed): nothing
        // before it in walk order is opened again (files ahead may be, to prefetch them).
        const first = order.indexOf(page.hits[0]!.path);
        expect(opened[0]).toBe(page.hits[0]!.path);
        for (const path of opened) expect(order.indexOf(path)).toBeGreaterThanOrEqual(first);
        if (first >= order.indexOf("d1/f1.txt")) expect(listed).toEqual([tree.directory, `${tree.directory}/d1`]);
      }
      offset = page.nextOffset;
      pages++;
    } while (offset !== undefined);
    expect(pages).toBeGreaterThan(4);
  });

  it("continues inside a file at the line after the last hit", async () => {
    const lines = Array.from({ length: 300 }, (_, index) => `needle line ${index + 1}`);
    tree = await makeTree({ "one.txt": `${lines.join("\n")}\n` });
    const pages = await allPages(tree.root, { query: "needle" }, { maxPageBytes: 1_024 });
    expect(pages.length).toBeGreaterThan(10);
    expect(pages.flatMap((page) => page.hits).map((hit) => hit.line)).toEqual(lines.map((_, index) => index + 1));
  });

  it("gives the same pages for an unchanged tree", async () => {
    tree = await makeTree(manyHits());
    const first = await allPages(tree.root, { query: "needle" }, { maxPageBytes: 2_048 });
    const second = await allPages(tree.root, { query: "needle" }, { maxPageBytes: 2_048 });
    expect(second).toEqual(first);
  });

  it("refuses an offset that is not a cursor, or one made for another search", async () => {
    tree = await makeTree(manyHits());
    const page = await searchWorkspace(tree.root, { query: "needle" }, { maxPageBytes: 1_024 });
    const offset = page.nextOffset!;
    const forged = (fields: unknown[]) => Buffer.from(JSON.stringify(fields)).toString("base64url");
    const decoded = JSON.parse(Buffer.from(offset, "base64url").toString()) as unknown[];
    const cases: { query: string; offset: unknown; path?: string; ignoreCase?: boolean }[] = [
      { query: "needle", offset: "not a cursor" },
      { query: "needle", offset: "" },
      { query: "needle", offset: 42 },
      { query: "needle", offset: forged([1, "0000000000000000", "d0/f0.txt", 0, 1, 0]) },
      { query: "needle", offset: forged([...decoded.slice(0, 3), -1, 1, 0]) },
      { query: "needle", offset: forged([...decoded.slice(0, 2), "../x", 0, 1, 0]) },
      { query: "other", offset },
      { query: "needle", offset, ignoreCase: true },
      { query: "needle", offset, path: "d1" },
    ];
    for (const input of cases) {
      const refused = await searchWorkspace(tree.root, input as { query: string }).catch((error: unknown) => error);
      expect(isToolInputError(refused, "offset_invalid"), JSON.stringify(input)).toBe(true);
    }
  });

  it("stops a literal search at searchTimeoutMs and continues where it stopped", async () => {
    const slow: WorkspaceOperations = {
      ...nodeWorkspaceOperations,
      open: async (path, flags, mode) => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return nodeWorkspaceOperations.open(path, flags, mode);
      },
    };
    const files: Record<string, string> = {};
    for (let index = 0; index < 8; index++) files[`f${index}.txt`] = `needle ${index}\n`;
    tree = await makeTree(files, slow);
    const first = await searchWorkspace(tree.root, { query: "needle" }, { searchTimeoutMs: 20 });
    expect(first.timedOut).toBe(true);
    expect(first.truncated).toBe(true);
    expect(first.hits.length).toBeGreaterThan(0);
    expect(first.hits.length).toBeLessThan(8);
    const rest = await allHits(tree.root, { query: "needle", offset: first.nextOffset });
    expect(locations([...first.hits, ...rest])).toEqual(Object.keys(files).map((path) => `${path}:1`));
  });

  it("honours an abort signal", async () => {
    tree = await makeTree(manyHits());
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(searchWorkspace(tree.root, { query: "needle" }, { signal: controller.signal })).rejects.toThrow(
      "stop",
    );
  });
});
