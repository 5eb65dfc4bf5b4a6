import { defineTool, type Tool, ToolInputError } from "@castellan/harness";
import { discoverGuidance } from "../instructions/guidance-check.js";
import { jsonResult, refusalsAsResults } from "./results.js";
import { directoryOf, type WorkspaceToolsContext } from "./workspace-context.js";

/** The input of `read_workspace_file`. */
export interface ReadWorkspaceFileInput {
  readonly path: string;
  /** 1-based line to start at (a search hit's `line`); not with `offset`. */
  readonly startLine?: number;
  /** Exact UTF-8 byte offset to start at (a page's `nextOffset`); not with `startLine`. */
  readonly offset?: number;
}

/**
 * `read_workspace_file`: one page of a file's text, by line or by byte offset, never both;
 * from the start when neither is given. A page is at most `maxPageBytes` of JSON and ends at
 * a line end where one fits, or mid-line at a character boundary for a long line; continue
 * with `offset: nextOffset` (no rescan). Lines are LF-separated, CRLF bytes kept as they are.
 * A binary file (a NUL in its first 8 KiB) is refused with `binary_file`. Read-only.
 */
export function readWorkspaceFileTool(context: WorkspaceToolsContext): Tool<ReadWorkspaceFileInput> {
  return defineTool<ReadWorkspaceFileInput>({
    name: "read_workspace_file",
    description:
      "Read a text file in the workspace, one page at a time. Give startLine (1-based, e.g. a search hit's line) or offset (a previous page's nextOffset), or neither to start at the beginning. Returns { path, startLine, offset, text, bytes, totalBytes, truncated, nextOffset? }.",
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "Path relative to the workspace root, like src/index.ts." },
        startLine: { type: "integer", minimum: 1, description: "1-based line to start at." },
        offset: { type: "integer", minimum: 0, description: "Byte offset to start at: a page's nextOffset." },
      },
      required: ["path"],
      additionalProperties: false,
    },
    readOnly: true,
    execute: (input, ctx) =>
      refusalsAsResults(async () => {
        if (input.startLine !== undefined && input.offset !== undefined) {
          throw new ToolInputError(
            "input_invalid",
            "Give startLine or offset, not both: startLine to start at a line, offset to continue from a page's nextOffset.",
          );
        }
        const { root, guidance } = context.bind(ctx);
        // The reading code loads on the first read rather than with the package.
        const [{ openResolvedFile }, { resolveForRead }, { checkOffset, isBinary, lineStart, readPage }] =
          await Promise.all([
            import("../../../platform/paths/open-file.js"),
            import("../../../platform/paths/resolve-read.js"),
            import("./read-page.js"),
          ]);
        const file = await resolveForRead(root, input.path);
        await discoverGuidance(guidance, ctx, directoryOf(file.filePath));
        if (file.throughLink) await discoverGuidance(guidance, ctx, directoryOf(input.path));
        const handle = await openResolvedFile(file);
        try {
          if (await isBinary(handle)) {
            throw new ToolInputError(
              "binary_file",
              `${JSON.stringify(input.path)} is a binary file (it has a NUL byte in its first 8 KiB). To look at an image, use read_workspace_image.`,
            );
          }
          let start = 0;
          let startLine: number | null = 1;
          if (input.startLine !== undefined) {
            start = await lineStart(handle, input.startLine, ctx.signal);
            startLine = input.startLine;
          } else if (input.offset !== undefined) {
            await checkOffset(handle, input.offset);
            start = input.offset;
            startLine = input.offset === 0 ? 1 : null;
          }
          return jsonResult(await readPage(handle, start, startLine, context.limits.maxPageBytes));
        } finally {
          await handle.close();
        }
      }),
  });
}
