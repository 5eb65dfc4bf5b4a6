import { defineTool, type Tool, type ToolOutput } from "@castellan/harness";
import type { BrowserOwner } from "./browser-owner.js";
import { type CapturePath, checkCapturePath, resolveCapturePath } from "./capture-path.js";
import { BrowserToolError } from "./errors.js";
import { captureText } from "./observation-text.js";
import { pngSize } from "./png.js";
import { browserToolSchemas } from "./schemas.js";
import { closedError } from "./session-browser.js";
import { admitted, browserFor, firstPage, invalidInput, pageAdmission, perform } from "./tool-support.js";
import type { BrowserCaptureRequest } from "./types.js";

/** The input of `browser_capture`. */
export interface BrowserCaptureInput extends BrowserCaptureRequest {
  /** Relative to the capture workspace root; the PNG is also written there. Default: not saved. */
  readonly savePath?: string;
}

function requestOf(input: BrowserCaptureInput): BrowserCaptureRequest {
  if ((input.width === undefined) !== (input.height === undefined)) {
    throw invalidInput(
      "width and height are given together or not at all; call browser_capture again with both or neither.",
    );
  }
  const { width, height, colorScheme, reducedMotion } = input;
  return {
    ...(width === undefined ? {} : { width }),
    ...(height === undefined ? {} : { height }),
    ...(colorScheme === undefined ? {} : { colorScheme }),
    ...(reducedMotion === undefined ? {} : { reducedMotion }),
  };
}

async function savePathOf(owner: BrowserOwner, input: BrowserCaptureInput): Promise<CapturePath | undefined> {
  if (input.savePath === undefined) return undefined;
  const root = owner.options.captureRoot;
  const path = resolveCapturePath(root, input.savePath);
  await checkCapturePath(root as string, path);
  return path;
}

async function write(owner: BrowserOwner, path: CapturePath, png: Uint8Array): Promise<void> {
  try {
    await owner.files.writeAtomically(path.file, png);
  } catch (error) {
    throw new BrowserToolError(
      "browser_capture_path_refused",
      `The PNG could not be saved at ${JSON.stringify(path.relative)} (${(error as Error).message}); capture without savePath or choose another path.`,
      { cause: error },
    );
  }
}

/** `browser_capture`: the visible viewport as PNG, after a text block of what it shows. */
export function captureTool(owner: BrowserOwner): Tool<BrowserCaptureInput> {
  return defineTool<BrowserCaptureInput>({
    name: "browser_capture",
    description:
      "Capture the visible viewport of the active page as a PNG, optionally at width×height CSS px (both or neither) with a colorScheme and reducedMotion (kept for the tab until the next capture), and optionally save it at savePath in the capture workspace. Returns a text block of what it shows, then the image. The latest observation becomes this metadata: call browser_snapshot before searching page text.",
    inputSchema: browserToolSchemas.browser_capture,
    async admit(input, ctx) {
      requestOf(input);
      const admission = pageAdmission(owner, ctx);
      await savePathOf(owner, input);
      return admitted(admission);
    },
    execute: (input, ctx) =>
      perform(owner, ctx, async (state): Promise<ToolOutput> => {
        const request = requestOf(input);
        const browser = await browserFor(owner, state, ctx.signal);
        state.latest = undefined;
        const capture = await browser.capture(request, { signal: ctx.signal });
        if (state.closed) throw closedError();
        state.rememberTabs(capture.tabs);
        const png = capture.png;
        if (!(png instanceof Uint8Array)) {
          throw new BrowserToolError(
            "browser_action_failed",
            "The browser returned no PNG; call browser_capture again.",
          );
        }
        if (png.byteLength > owner.options.maxImageBytes) {
          throw new BrowserToolError(
            "browser_image_too_large",
            `The PNG is ${png.byteLength} bytes, over the ${owner.options.maxImageBytes}-byte limit; capture a smaller width and height.`,
          );
        }
        const { width, height } = pngSize(png);
        // Checked again at write time: the directory may have changed while approval waited.
        const path = await savePathOf(owner, input);
        if (path) await write(owner, path, png);
        const tabs = state.tabs.map(({ adapterTabId: _, ...tab }) => tab);
        const text = captureText({ capture: { ...capture, tabs }, width, height, saved: path?.relative });
        const page = firstPage(owner, state.recordText(text));
        return [
          { type: "text", text: page },
          { type: "image", mediaType: "image/png", data: Buffer.from(png).toString("base64") },
        ];
      }),
  });
}
