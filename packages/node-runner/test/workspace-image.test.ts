// read_workspace_image: the format from magic bytes, a text block then the image, refusals
// that say what the file is, the size bound, the same path rules as the other tools.
import { symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createWorkspaceImageTool } from "../src/capabilities/workspace/tools/read-workspace-image.js";
import { callTool, tempDirPerTest, workspaceLayout } from "./support/index.ts";

const temp = tempDirPerTest("castellan-image-");
const png = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
  "hex",
);

async function setup(maxBytes?: number) {
  const layout = await workspaceLayout(temp.path);
  const tool = createWorkspaceImageTool({ root: layout.rootUrl, ...(maxBytes ? { maxBytes } : {}) });
  return { ...layout, tool, call: (path: string) => callTool(tool, { path }) };
}

describe("read_workspace_image", () => {
  it("is read-only and returns a text block, then the image, whatever the file's name", async () => {
    const { tool, call, root } = await setup();
    expect(tool.readOnly).toBe(true);
    await writeFile(join(root, "picture.txt"), png);
    const { result } = await call("picture.txt");
    expect(result.isError).toBe(false);
    expect(result.content).toEqual([
      { type: "text", text: JSON.stringify({ path: "picture.txt", mediaType: "image/png", bytes: png.length }) },
      { type: "image", mediaType: "image/png", data: png.toString("base64") },
    ]);
  });

  it("refuses a non-image with what it is; an SVG points to read_workspace_file", async () => {
    const { call, root } = await setup();
    await writeFile(join(root, "logo.png"), '<svg xmlns="http://www.w3.org/2000/svg"></svg>');
    await writeFile(join(root, "doc.png"), "%PDF-1.7\n");
    expect((await call("logo.png")).text).toMatch(
      /^not_an_image: .*svg\. An SVG is text: read it with read_workspace_file/,
    );
    expect((await call("doc.png")).text).toMatch(/^not_an_image: .*pdf/);
  });

  it("refuses an image over maxBytes with its size and the limit", async () => {
    const { call, root } = await setup(50);
    await writeFile(join(root, "a.png"), png);
    expect((await call("a.png")).text).toBe(
      `image_too_large: "a.png" is ${png.length} bytes, over the image limit of 50. Look at a smaller image, or make a smaller copy with a command.`,
    );
  });

  it("keeps the path rules: no escape, no link out of the root", async () => {
    const { call, root, outside } = await setup();
    await symlink(outside, join(root, "out.png"));
    expect((await call("../outside.txt")).text).toMatch(/^path_invalid:/);
    expect((await call("out.png")).text).toMatch(/^symlink_outside_root:/);
  });
});
