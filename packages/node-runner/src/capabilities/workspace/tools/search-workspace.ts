import { defineTool, type Tool } from "@castellan/harness";
import { checkWorkspacePath } from "../../../kernel/workspace-path/check-path.js";
import { resolveEntry } from "../../../platform/paths/entry.js";
import { discoverGuidance } from "../instructions/guidance-check.js";
import type { SearchWorkspaceInput } from "../search/index.js";
import { jsonResult, refusalsAsResults } from "./results.js";
import type { WorkspaceToolsContext } from "./workspace-context.js";

/**
 * `search_workspace`: the lines of workspace files that contain `query` (a literal, or
 * JavaScript RegExp source with `regex`), as pages of `{ path, line, text, textTruncated? }`
 * hits with `filesScanned`, `truncated`, `nextOffset` and `timedOut`. The walk is depth first
 * in byte order of names, honours `.gitignore` files and `.git/info/exclude`, skips `.git/` and the root's `.castellan/` and `.castellan-sessions/`,
 * binary files and links, and stops at `searchTimeoutMs`. With the `ripgrep` engine a literal
 * search matches through `rg`, with the same rules and pages. Read-only.
 */
export function searchWorkspaceTool(context: WorkspaceToolsContext): Tool<SearchWorkspaceInput> {
  const { limits } = context;
  return defineTool<SearchWorkspaceInput>({
    name: "search_workspace",
    description:
      "Search the text files of the workspace for lines containing query (literal unless regex is true). Skips .git, Castellan's own state (.castellan, .castellan-sessions), ignored and binary files. Returns { hits: [{ path, line, text, textTruncated? }], filesScanned, truncated, nextOffset?, timedOut }; line is what read_workspace_file takes as startLine; pass nextOffset as offset with the same arguments for more.",
    inputSchema: {
      type: "object",
      properties: {
        query: {
          type: "string",
          minLength: 1,
          description: "Text to find within a line (or RegExp source with regex).",
        },
        path: {
          type: "string",
          description: "Directory or file to search, relative to the workspace root. Default: the root.",
        },
        glob: { type: "string", description: "Only files whose path matches, e.g. **/*.ts or src/*.md." },
        regex: { type: "boolean", description: "Treat query as a JavaScript regular expression." },
        ignoreCase: { type: "boolean", description: "Match without regard to case." },
        offset: { type: "string", description: "A previous page's nextOffset." },
      },
      required: ["query"],
      additionalProperties: false,
    },
    readOnly: true,
    execute: (input, ctx) =>
      refusalsAsResults(async () => {
        const { root, guidance } = context.bind(ctx);
        const path = input.path ?? ".";
        const segments = checkWorkspacePath(path);
        const searched = segments.length === 0 ? undefined : await resolveEntry(root, path);
        // The engine loads on the first search, not with the package.
        const { searchWorkspace } = await import("../search/index.js");
        const page = await searchWorkspace(root, input, {
          maxPageBytes: limits.maxPageBytes,
          maxLineBytes: limits.maxLineBytes,
          searchTimeoutMs: limits.searchTimeoutMs,
          signal: ctx.signal,
          engine: context.searchEngine ?? "builtin",
        });
        // The guidance of the directory searched (a file's own directory) is read for the next request.
        const directory = searched === undefined || searched.kind === "directory" ? segments : segments.slice(0, -1);
        await discoverGuidance(guidance, ctx, directory);
        return jsonResult(page);
      }),
  });
}
