// search_workspace as a tool: hits the read tool can open at their line, the limits the tool
// was made with, refusals with codes, and the search path's guidance read for the next request.
import { describe, expect, it } from "vitest";
import { itNeeding } from "../../../test-support/system-programs.ts";
import { callTool, tempDirPerTest, workspaceLayout, writeTree } from "./support/index.ts";
import { workspaceToolsFor } from "./support/workspace-tools.ts";

const temp = tempDirPerTest("castellan-search-tool-");

describe("search_workspace", () => {
  it("finds lines, and each hit's line is where read_workspace_file starts", async () => {
    const layout = await workspaceLayout(temp.path);
    await writeTree(layout.root, { "src/a.ts": "one\nneedle here\nthree\n", "b.md": "no\n" });
    const { tools } = workspaceToolsFor(layout.rootUrl);
    const page = (await callTool(tools.search_workspace as never, { query: "needle" })).json();
    expect(page).toMatchObject({
      hits: [{ path: "src/a.ts", line: 2, text: "needle here" }],
      truncated: false,
      timedOut: false,
    });
    const read = (await callTool(tools.read_workspace_file as never, { path: "src/a.ts", startLine: 2 })).json();
    expect(read.text.startsWith("needle here")).toBe(true);
  });

  it("cuts a hit's text to maxLineBytes and keeps pages within maxPageBytes", async () => {
    const layout = await workspaceLayout(temp.path);
    const lines = Array.from({ length: 200 }, (_, index) => `match ${index} ${"z".repeat(100)}`).join("\n");
    await writeTree(layout.root, { "many.txt": lines });
    const { tools } = workspaceToolsFor(layout.rootUrl, { limits: { maxLineBytes: 32, maxPageBytes: 2_048 } });
    const page = (await callTool(tools.search_workspace as never, { query: "match" })).json();
    expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(2_048);
    expect(page.truncated).toBe(true);
    expect(page.hits[0]).toMatchObject({ textTruncated: true });
    expect(Buffer.byteLength(page.hits[0].text)).toBeLessThanOrEqual(32);
  });

  it("refuses a bad regex, an empty query and a path outside, each with its code", async () => {
    const layout = await workspaceLayout(temp.path);
    const { tools } = workspaceToolsFor(layout.rootUrl);
    const search = (input: Record<string, unknown>) => callTool(tools.search_workspace as never, input as never);
    expect((await search({ query: "(", regex: true })).text).toMatch(/^query_invalid:/);
    expect((await search({ query: "x", path: "../root-evil" })).text).toMatch(/^path_invalid:/);
    expect((await search({ query: "x", glob: "[" })).text).toMatch(/^glob_invalid:|^query_invalid:/);
  });

  it("refuses an unknown engine", async () => {
    const layout = await workspaceLayout(temp.path);
    expect(() => workspaceToolsFor(layout.rootUrl, { searchEngine: "grep" as never })).toThrow(/searchEngine must be/);
  });

  // The "ripgrep" engine is asked for by name here, so it needs rg ("auto" would fall back).
  itNeeding(["rg"], "gives the same pages through rg as built in", async () => {
    const layout = await workspaceLayout(temp.path);
    await writeTree(layout.root, {
      ".gitignore": "skip/\n",
      "skip/a.txt": "needle\n",
      "src/a.ts": "x\nneedle one\n",
      "src/b.ts": "needle two\r\nneedle three\n",
      "bin.dat": "needle\u0000",
    });
    const pages = [];
    for (const searchEngine of ["builtin", "ripgrep"] as const) {
      const { tools } = workspaceToolsFor(layout.rootUrl, { searchEngine });
      pages.push((await callTool(tools.search_workspace as never, { query: "needle" })).json());
    }
    expect(pages[0].hits.map((hit: { path: string; line: number }) => `${hit.path}:${hit.line}`)).toEqual([
      "src/a.ts:2",
      "src/b.ts:1",
      "src/b.ts:2",
    ]);
    expect(pages[1]).toEqual(pages[0]);
  });
});
