// edit_workspace_file: one exact occurrence, byte for byte; admission before permission; the
// write re-checked after approval; a hardlink never carries the write to another inode.
import { link, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { callTool, tempDirPerTest, toolContext, workspaceLayout, writeTree } from "./support/index.ts";
import { workspaceToolsFor } from "./support/workspace-tools.ts";

const temp = tempDirPerTest("castellan-edit-");

async function setup(
  files: Record<string, string | Uint8Array>,
  limits?: Record<string, number>,
  allowProtectedWrites = false,
) {
  const layout = await workspaceLayout(temp.path);
  await writeTree(layout.root, files);
  const { tools } = workspaceToolsFor(layout.rootUrl, { ...(limits ? { limits } : {}), allowProtectedWrites });
  const edit = tools.edit_workspace_file as NonNullable<typeof tools.edit_workspace_file>;
  return { ...layout, edit, call: (input: Record<string, unknown>) => callTool(edit, input as never) };
}

describe("edit_workspace_file", () => {
  it("replaces the one occurrence and returns its receipt; the admission names the file", async () => {
    const { call, root } = await setup({ "src/a.ts": "const a = 1;\nconst b = 2;\n" });
    const { json, admission } = await call({ path: "src/a.ts", expected: "b = 2", replacement: "b = 3" });
    expect(admission).toEqual({ files: [{ path: "src/a.ts", operation: "update" }] });
    expect(json()).toEqual({ path: "src/a.ts", operation: "updated", edits: 1 });
    expect(await readFile(join(root, "src/a.ts"), "utf8")).toBe("const a = 1;\nconst b = 3;\n");
  });

  it("fails a missing text, and an ambiguous one with the count and the first five line numbers", async () => {
    const lines = Array.from({ length: 7 }, () => "x = 1;").join("\n");
    const { call, root } = await setup({ "a.ts": lines });
    expect((await call({ path: "a.ts", expected: "y", replacement: "z" })).text).toMatch(/^expected_not_found:/);
    const ambiguous = await call({ path: "a.ts", expected: "x = 1", replacement: "x = 2" });
    expect(ambiguous.text).toMatch(
      /^expected_ambiguous: expected occurs 7 times .* \(at lines 1, 2, 3, 4, 5, \.\.\.\)/,
    );
    expect(await readFile(join(root, "a.ts"), "utf8")).toBe(lines);
  });

  it("matches byte for byte: no whitespace folding, CRLF kept", async () => {
    const { call, root } = await setup({ "w.txt": "a  b\r\nc\r\n" });
    expect((await call({ path: "w.txt", expected: "a b", replacement: "x" })).text).toMatch(/^expected_not_found:/);
    await call({ path: "w.txt", expected: "c\r\n", replacement: "d\r\n" });
    expect(await readFile(join(root, "w.txt"), "utf8")).toBe("a  b\r\nd\r\n");
  });

  it("refuses before permission: an empty expected, an oversize input, a missing file, a file over maxFileBytes", async () => {
    const { edit, root } = await setup(
      { "a.txt": "hello", "big.txt": "x".repeat(2_000) },
      { maxFileBytes: 1_000, maxInputBytes: 10 },
    );
    const ctx = toolContext();
    const refusal = async (input: Record<string, string>) => {
      try {
        await edit.admit?.(input as never, ctx);
        return "admitted";
      } catch (error) {
        return (error as { code: string }).code;
      }
    };
    expect(await refusal({ path: "a.txt", expected: "", replacement: "x" })).toBe("input_invalid");
    expect(await refusal({ path: "a.txt", expected: "hello", replacement: "world!" })).toBe("input_too_large");
    expect(await refusal({ path: "nope.txt", expected: "a", replacement: "b" })).toBe("path_not_found");
    expect(await refusal({ path: "big.txt", expected: "x", replacement: "y" })).toBe("file_too_large");
    expect(await refusal({ path: "../a.txt", expected: "a", replacement: "b" })).toBe("path_invalid");
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("hello");
  });

  it("checks the file again at execution: a change while approval waited is seen", async () => {
    const { edit, root } = await setup({ "a.txt": "one two" });
    const ctx = toolContext();
    const input = { path: "a.txt", expected: "two", replacement: "2" };
    const { admission } = (await edit.admit?.(input, ctx)) ?? {};
    await writeFile(join(root, "a.txt"), "one three");
    const result = (await edit.execute(input, { ...ctx, admission })) as { content: { text: string }[] };
    expect(result.content[0]?.text).toMatch(/^expected_not_found:/);
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("one three");
  });

  it("with protection lifted, writes a new inode: a hardlink to the file keeps the old content; the mode is kept", async () => {
    const { call, root } = await setup({ "a.sh": "echo old\n" }, undefined, true);
    const { chmod } = await import("node:fs/promises");
    await chmod(join(root, "a.sh"), 0o750);
    await link(join(root, "a.sh"), join(temp.path, "hardlink.sh"));
    await call({ path: "a.sh", expected: "old", replacement: "new" });
    expect(await readFile(join(temp.path, "hardlink.sh"), "utf8")).toBe("echo old\n");
    expect(await readFile(join(root, "a.sh"), "utf8")).toBe("echo new\n");
    expect((await stat(join(root, "a.sh"))).mode & 0o777).toBe(0o750);
  });

  it("refuses a symlink, naming its target", async () => {
    const { call, root, outside } = await setup({});
    await symlink(outside, join(root, "link.txt"));
    const { text } = await call({ path: "link.txt", expected: "outside", replacement: "inside" });
    expect(text).toMatch(/^path_is_symlink: .*outside\.txt/);
    expect(await readFile(outside, "utf8")).toBe("outside secret\n");
  });
});
