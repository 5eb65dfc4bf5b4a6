// browser_capture: one text block then one PNG block under one call, bounded by maxImageBytes,
// saved atomically only inside the capture workspace.
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ScriptedStep } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { call, fakePng, lastToolText, refIn, runSteps, stubFactory } from "./browser-support.ts";
import { cleanupAfterEach, tempDirPerTest } from "./support/index.ts";

const cleanups = cleanupAfterEach();
const cleanup = (close: () => Promise<void>) => cleanups.push(close);
const temp = tempDirPerTest("castellan-browser-capture-");
const page = "http://127.0.0.1:4000/";

describe("browser_capture", () => {
  it("returns the metadata text, then the PNG, under one call; the text becomes the latest observation", async () => {
    const factory = stubFactory({ png: fakePng(800, 600, 5_000) });
    await mkdir(join(temp.path, "shots"));
    const { results, texts } = await runSteps(
      [
        call("browser_navigate", { url: page }),
        (request): ScriptedStep => {
          const ref = refIn(lastToolText(request));
          return {
            toolCalls: [
              {
                name: "browser_capture",
                input: {
                  width: 800,
                  height: 600,
                  colorScheme: "dark",
                  reducedMotion: "reduce",
                  savePath: "shots/a.png",
                },
              },
              { name: "browser_snapshot", input: { query: "Delete" } },
              { name: "browser_click", input: { role: "button", name: "Delete", ref } },
            ],
          };
        },
      ],
      { factory, cleanup, tools: { captureWorkspaceRoot: pathToFileURL(`${temp.path}/`) } },
    );
    const capture = results[1];
    expect(capture?.isError).toBe(false);
    expect(capture?.content.map((block) => block.type)).toEqual(["text", "image"]);
    const text = capture?.content[0]?.type === "text" ? capture.content[0].text : "";
    expect(text.split("\n").filter((line) => !line.startsWith("- "))).toEqual([
      `url: "${page}"`,
      `title: "Title of ${page}"`,
      "tabs:",
      "viewport: 1280×720 CSS px",
      "colorScheme: dark",
      "reducedMotion: reduce",
      "png: 800×600 px, 5000 bytes",
      'saved: "shots/a.png"',
      expect.stringMatching(/^This observation is capture metadata/),
      "",
    ]);
    const image = capture?.content[1];
    expect(image).toEqual({
      type: "image",
      mediaType: "image/png",
      data: Buffer.from(factory.behaviour.png).toString("base64"),
    });
    expect(factory.opened[0]?.captures).toEqual([
      { width: 800, height: 600, colorScheme: "dark", reducedMotion: "reduce" },
    ]);
    expect((await readFile(join(temp.path, "shots/a.png"))).equals(Buffer.from(factory.behaviour.png))).toBe(true);
    expect(await readdir(join(temp.path, "shots"))).toEqual(["a.png"]);
    // After a capture the latest observation is its metadata: no page text, no refs.
    expect(texts[2]).toMatch(/^No line of observation o[a-z0-9]+ contains "Delete"/);
    expect(results[2]?.isError).toBe(false);
    expect(texts[3]).toMatch(/^browser_ref_stale: /);
  });

  it("refuses a PNG over maxImageBytes: no image, nothing saved", async () => {
    const factory = stubFactory({ png: fakePng(800, 600, 30_000) });
    const { results, texts } = await runSteps(
      [call("browser_navigate", { url: page }), call("browser_capture", { savePath: "big.png" })],
      {
        factory,
        cleanup,
        tools: { maxImageBytes: 20_000, captureWorkspaceRoot: pathToFileURL(`${temp.path}/`) },
      },
    );
    expect(results[1]?.isError).toBe(true);
    expect(results[1]?.content.map((block) => block.type)).toEqual(["text"]);
    expect(texts[1]).toMatch(/^browser_image_too_large: The PNG is 30000 bytes, over the 20000-byte limit/);
    expect(await readdir(temp.path)).toEqual([]);
  });

  it("fails a capture that is not a PNG as browser_action_failed", async () => {
    const factory = stubFactory({ png: new Uint8Array(100) });
    const { texts } = await runSteps([call("browser_navigate", { url: page }), call("browser_capture", {})], {
      factory,
      cleanup,
    });
    expect(texts[1]).toMatch(/^browser_action_failed: /);
  });

  it("refuses ../, absolute, symlinked file and parent, missing parent and no root, asking nobody", async () => {
    const outside = join(temp.path, "outside");
    const root = join(temp.path, "root");
    await mkdir(outside);
    await mkdir(root);
    await writeFile(join(outside, "target.png"), "keep");
    await symlink(join(outside, "target.png"), join(root, "link.png"));
    await symlink(outside, join(root, "linked-dir"));
    const paths = ["../x.png", "/tmp/x.png", "link.png", "linked-dir/x.png", "missing/x.png", "a/../b.png", "./x.png"];
    const factory = stubFactory();
    const { asked, texts } = await runSteps(
      [call("browser_navigate", { url: page }), ...paths.map((savePath) => call("browser_capture", { savePath }))],
      { factory, cleanup, permissions: "ask-on-write", tools: { captureWorkspaceRoot: pathToFileURL(`${root}/`) } },
    );
    expect(asked.map((request) => request.toolName)).toEqual(["browser_navigate"]);
    expect(texts.slice(1).map((text) => text.split(":")[0])).toEqual(paths.map(() => "browser_capture_path_refused"));
    expect(factory.opened[0]?.calls).toEqual([`navigate ${page}`]);
    expect(await readFile(join(outside, "target.png"), "utf8")).toBe("keep");
    expect(await readdir(outside)).toEqual(["target.png"]);

    const noRoot = await runSteps(
      [call("browser_navigate", { url: page }), call("browser_capture", { savePath: "x.png" })],
      {
        factory: stubFactory(),
        cleanup,
      },
    );
    expect(noRoot.texts[1]).toMatch(/^browser_capture_path_refused: No capture workspace root/);
  });
});
