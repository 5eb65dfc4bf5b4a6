import { defineTool, type Tool, ToolInputError } from "@castellan/harness";
import { InvalidOptionsError } from "../../../kernel/errors/errors.js";
import { sniffBytes, sniffImage } from "../../../platform/image/sniff.js";
import { openResolvedFile, readWholeFile } from "../../../platform/paths/open-file.js";
import type { WorkspaceOperations } from "../../../platform/paths/operations.js";
import { resolveForRead } from "../../../platform/paths/resolve-read.js";
import { bindWorkspaceRootSync, type WorkspaceRoot } from "../../../platform/paths/root.js";
import { refusalsAsResults } from "./results.js";
import type { WorkspaceCallScope } from "./workspace-context.js";

/** Options of {@link createWorkspaceImageTool}. */
export interface WorkspaceImageToolOptions {
  /** A `file:` URL of an existing directory; its real path is captured now. */
  readonly root: URL | string;
  /** Largest image returned, in bytes. Default 5,242,880 (5 MiB); 1 to 52,428,800. */
  readonly maxBytes?: number;
  /** Every file-system call goes here. Default: the local file system. */
  readonly operations?: WorkspaceOperations;
}

/** The input of `read_workspace_image`. */
export interface ReadWorkspaceImageInput {
  readonly path: string;
}

/** The default of `maxBytes`: 5 MiB. */
export const defaultImageMaxBytes = 5_242_880;
const defaultMaxBytes = defaultImageMaxBytes;

/**
 * `read_workspace_image({ path })`: shows the model an image file under `root`, with the same
 * path rules as the other workspace tools. The format is decided by the file's first bytes,
 * never its name: PNG, JPEG, GIF or WebP. The result is a text block `{ path, mediaType,
 * bytes }`, then the image. Anything else is `not_an_image` naming what it is (an SVG points
 * to `read_workspace_file`); a file over `maxBytes` is `image_too_large`. Read-only.
 *
 * @throws WorkspaceRootError when `root` is not a `file:` URL of an existing directory.
 */
export function createWorkspaceImageTool(options: WorkspaceImageToolOptions): Tool<ReadWorkspaceImageInput> {
  const maxBytes = options.maxBytes ?? defaultMaxBytes;
  if (!Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > 52_428_800) {
    throw new InvalidOptionsError("createWorkspaceImageTool: maxBytes must be an integer from 1 to 52,428,800.");
  }
  const root = bindWorkspaceRootSync(options.root, options.operations);
  return workspaceImageTool(() => root, maxBytes);
}

/** The image tool over a root found per call (fixed above; the Session's own in `workspace()`). */
export function workspaceImageTool(
  rootOf: (call: WorkspaceCallScope) => WorkspaceRoot,
  maxBytes: number,
): Tool<ReadWorkspaceImageInput> {
  return defineTool<ReadWorkspaceImageInput>({
    name: "read_workspace_image",
    description:
      "Look at an image file in the workspace (PNG, JPEG, GIF or WebP). Returns { path, mediaType, bytes } and the image.",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string", description: "Path relative to the workspace root." } },
      required: ["path"],
      additionalProperties: false,
    },
    readOnly: true,
    execute: (input, ctx) =>
      refusalsAsResults(async () => {
        const root = rootOf(ctx);
        const file = await resolveForRead(root, input.path);
        const handle = await openResolvedFile(file);
        let head: Uint8Array;
        try {
          head = new Uint8Array(Math.min(sniffBytes, handle.size));
          head = head.subarray(0, await handle.read(head, 0));
        } finally {
          await handle.close();
        }
        const kind = sniffImage(head);
        if (!kind.image) {
          const hint =
            kind.kind === "svg"
              ? " An SVG is text: read it with read_workspace_file."
              : " Only PNG, JPEG, GIF and WebP images can be shown.";
          throw new ToolInputError(
            "not_an_image",
            `${JSON.stringify(input.path)} is not an image the model can see: its content is ${kind.kind}.${hint}`,
          );
        }
        if (file.size > maxBytes) throw tooLarge(input.path, file.size, maxBytes);
        let bytes: Uint8Array;
        try {
          bytes = await readWholeFile(await resolveForRead(root, input.path), maxBytes);
        } catch (error) {
          if (error instanceof ToolInputError && error.code === "file_too_large") {
            throw tooLarge(input.path, file.size, maxBytes);
          }
          throw error;
        }
        const read = sniffImage(bytes.subarray(0, sniffBytes));
        if (!read.image || read.mediaType !== kind.mediaType) {
          throw new ToolInputError(
            "path_changed",
            `${JSON.stringify(input.path)} changed while it was being read. Read it again.`,
          );
        }
        return {
          content: [
            {
              type: "text",
              text: JSON.stringify({ path: input.path, mediaType: kind.mediaType, bytes: bytes.length }),
            },
            { type: "image", mediaType: kind.mediaType, data: Buffer.from(bytes).toString("base64") },
          ],
          isError: false,
        };
      }),
  });
}

function tooLarge(path: string, size: number, limit: number): ToolInputError {
  return new ToolInputError(
    "image_too_large",
    `${JSON.stringify(path)} is ${size} bytes, over the image limit of ${limit}. Look at a smaller image, or make a smaller copy with a command.`,
  );
}
