// read_workspace_file: by line or by offset, fixed-buffer scanning, pages that never split a
// character, continuation without a rescan, binary and invalid UTF-8 files.
import { open, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { callTool, loggingOperations, tempDirPerTest, workspaceLayout, writeTree } from "./support/index.ts";
import { workspaceToolsFor } from "./support/workspace-tools.ts";

const temp = tempDirPerTest("castellan-read-");

async function setup(files: Record<string, string | Uint8Array>, limits?: { maxPageBytes?: number }) {
  const layout = await workspaceLayout(temp.path);
  await writeTree(layout.root, files);
  const { operations, log } = loggingOperations();
  const { tools } = workspaceToolsFor(layout.rootUrl, { operations, ...(limits ? { limits } : {}) });
  const read = (input: Record<string, unknown>) => callTool(tools.read_workspace_file as never, input as never);
  return { ...layout, read, log };
}

describe("read_workspace_file", () => {
  it("reads from the start when neither startLine nor offset is given", async () => {
    const { read } = await setup({ "a.txt": "one\ntwo\r\nthree" });
    const { json, result } = await read({ path: "a.txt" });
    expect(result.isError).toBe(false);
    expect(json()).toEqual({
      path: "a.txt",
      startLine: 1,
      offset: 0,
      text: "one\ntwo\r\nthree",
      bytes: 14,
      totalBytes: 14,
      truncated: false,
    });
  });

  it("refuses startLine and offset together", async () => {
    const { read } = await setup({ "a.txt": "x" });
    const { text, result } = await read({ path: "a.txt", startLine: 1, offset: 0 });
    expect(result.isError).toBe(true);
    expect(text).toMatch(/^input_invalid: Give startLine or offset, not both/);
  });

  it("an empty file has line 1, and a trailing LF starts an empty last line", async () => {
    const { read } = await setup({ "empty.txt": "", "two.txt": "a\n" });
    expect((await read({ path: "empty.txt", startLine: 1 })).json()).toMatchObject({ text: "", startLine: 1 });
    expect((await read({ path: "two.txt", startLine: 2 })).json()).toMatchObject({ text: "", offset: 2, startLine: 2 });
    const beyond = await read({ path: "two.txt", startLine: 3 });
    expect(beyond.text).toMatch(/^line_out_of_range: two\.txt has 2 lines/);
  });

  it("fails an out-of-range line with the line count instead of reading elsewhere", async () => {
    const { read } = await setup({ "a.txt": "1\n2\n3" });
    const { text, result } = await read({ path: "a.txt", startLine: 9 });
    expect(result.isError).toBe(true);
    expect(text).toBe("line_out_of_range: a.txt has 3 lines; line 9 does not exist. Read from a line from 1 to 3.");
  });

  it("starts at a search hit's line, keeping CRLF bytes", async () => {
    const { read } = await setup({ "a.txt": "l1\r\nl2\r\nl3\r\n" });
    expect((await read({ path: "a.txt", startLine: 2 })).json()).toMatchObject({ offset: 4, text: "l2\r\nl3\r\n" });
  });

  it("pages a long file at line ends, and continuing by nextOffset never rescans", async () => {
    const lines = Array.from({ length: 4_000 }, (_, index) => `line ${index + 1} ${"x".repeat(20)}`);
    const content = `${lines.join("\n")}\n`;
    const { read, log } = await setup({ "big.txt": content }, { maxPageBytes: 4_096 });
    let page = (await read({ path: "big.txt" })).json();
    let text = page.text;
    let pages = 1;
    while (page.truncated) {
      expect(page.text.endsWith("\n")).toBe(true);
      expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(4_096);
      const before = log.bytesRead;
      page = (await read({ path: "big.txt", offset: page.nextOffset })).json();
      // A continuation reads its page and a few bytes around the offset, not the file before it.
      expect(log.bytesRead - before).toBeLessThan(4_096 + 8_192 + 16);
      expect(page.startLine).toBeNull();
      text += page.text;
      pages++;
    }
    expect(text).toBe(content);
    expect(pages).toBeGreaterThan(20);
  });

  it("pages a huge line mid-line at character boundaries, never splitting one", async () => {
    const line = "é€😀a".repeat(5_000);
    const { read } = await setup({ "wide.txt": line }, { maxPageBytes: 2_048 });
    let page = (await read({ path: "wide.txt" })).json();
    let text = page.text;
    while (page.truncated) {
      expect(page.invalidUtf8).toBeUndefined();
      page = (await read({ path: "wide.txt", offset: page.nextOffset })).json();
      text += page.text;
    }
    expect(text).toBe(line);
  });

  it("keeps a page within maxPageBytes when JSON escapes inflate it", async () => {
    const { read } = await setup({ "ctl.txt": '\u0001\u0002"\\'.repeat(4_000) }, { maxPageBytes: 2_048 });
    const { json } = await read({ path: "ctl.txt" });
    const page = json();
    expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(2_048);
    expect(page.bytes).toBeGreaterThan(0);
  });

  it("refuses an offset inside a character or past the end", async () => {
    const { read } = await setup({ "u.txt": "aé" });
    expect((await read({ path: "u.txt", offset: 2 })).text).toMatch(
      /^offset_invalid: The offset 2 is inside a character/,
    );
    expect((await read({ path: "u.txt", offset: 4 })).text).toMatch(/^offset_out_of_range:/);
    expect((await read({ path: "u.txt", offset: 3 })).json()).toMatchObject({ text: "", truncated: false });
  });

  it("shows invalid UTF-8 as U+FFFD and says so", async () => {
    const { read } = await setup({ "bad.txt": Uint8Array.from([0x61, 0xff, 0x62, 0x0a]) });
    expect((await read({ path: "bad.txt" })).json()).toMatchObject({ text: "a\uFFFDb\n", invalidUtf8: true });
  });

  it("refuses a binary file, pointing to read_workspace_image", async () => {
    const { read } = await setup({ "img.bin": Uint8Array.from([0x89, 0x50, 0x00, 0x47]) });
    const { text } = await read({ path: "img.bin" });
    expect(text).toMatch(/^binary_file: .*read_workspace_image/);
  });

  it("reads line 1,000,000 of a 1.2-million-line file by scanning, holding only its buffer", async () => {
    const { read, root } = await setup({});
    const handle = await open(join(root, "deep.txt"), "w");
    const block = Array.from({ length: 10_000 }, (_, index) => `row ${index}`).join("\n");
    for (let index = 0; index < 120; index++) await handle.write(`${block}\n`);
    await handle.close();
    const page = (await read({ path: "deep.txt", startLine: 1_000_000 })).json();
    expect(page.text.startsWith("row 9999\nrow 0\n")).toBe(true);
    expect(page.startLine).toBe(1_000_000);
  });

  it("reads through a link to a file inside the root, but not to one outside", async () => {
    const { read, root, outside } = await setup({ "real.txt": "inside\n" });
    await symlink(join(root, "real.txt"), join(root, "link.txt"));
    await symlink(outside, join(root, "out.txt"));
    expect((await read({ path: "link.txt" })).json()).toMatchObject({ text: "inside\n" });
    expect((await read({ path: "out.txt" })).text).toMatch(/^symlink_outside_root:/);
  });
});
