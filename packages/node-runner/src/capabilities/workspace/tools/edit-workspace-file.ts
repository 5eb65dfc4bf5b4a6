import { defineTool, type Tool, ToolInputError } from "@castellan/harness";
import { checkWorkspacePath } from "../../../kernel/workspace-path/check-path.js";
import { assertGuidanceSeen } from "../instructions/guidance-check.js";
import { editDiff } from "./describe-edit.js";
import { jsonResult, refusalsAsResults } from "./results.js";
import { directoryOf, type WorkspaceToolsContext } from "./workspace-context.js";

/** The input of `edit_workspace_file`. */
export interface EditWorkspaceFileInput {
  readonly path: string;
  /** The exact text to replace: non-empty, and found exactly once, byte for byte. */
  readonly expected: string;
  readonly replacement: string;
}

/** The receipt of an edit. */
export interface EditReceipt {
  readonly path: string;
  readonly operation: "updated";
  readonly edits: 1;
}

const encoder = new TextEncoder();
/** Line numbers an ambiguity names, at most. */
const shownLines = 5;

/**
 * `edit_workspace_file`: replaces the one occurrence of `expected` in an existing regular
 * file with `replacement`. `expected` must occur exactly once, byte for byte
 * (`expected_not_found`, or `expected_ambiguous` with the count and the first line numbers).
 * The target is at most `maxFileBytes`, `expected` plus `replacement` at most
 * `maxInputBytes`. Admission checks the path, the sizes and the guidance; the write happens
 * after approval and checks everything again on the file as it is then. Not read-only.
 */
export function editWorkspaceFileTool(context: WorkspaceToolsContext): Tool<EditWorkspaceFileInput> {
  const { limits } = context;
  const checkInput = (input: EditWorkspaceFileInput) => {
    checkWorkspacePath(input.path);
    if (input.expected.length === 0) {
      throw new ToolInputError(
        "input_invalid",
        "expected is empty; give the exact text to replace, copied from the file.",
      );
    }
    const bytes = encoder.encode(input.expected).length + encoder.encode(input.replacement).length;
    if (bytes > limits.maxInputBytes) {
      throw new ToolInputError(
        "input_too_large",
        `expected and replacement are ${bytes} bytes together, over the limit of ${limits.maxInputBytes}. Make a smaller edit, or several.`,
      );
    }
  };
  return defineTool<EditWorkspaceFileInput>({
    name: "edit_workspace_file",
    description:
      "Replace one exact piece of text in an existing workspace file. expected must appear exactly once in the file, byte for byte (copy it from read_workspace_file, with enough surrounding lines to be unique).",
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "Path relative to the workspace root." },
        expected: { type: "string", description: "The exact text to replace; it must occur exactly once." },
        replacement: { type: "string", description: "The text to put in its place." },
      },
      required: ["path", "expected", "replacement"],
      additionalProperties: false,
    },
    async admit(input, ctx) {
      checkInput(input);
      const { root, guidance } = context.bind(ctx);
      const { resolveForWrite } = await filesystem();
      const target = await resolveForWrite(root, input.path);
      if (target.size > limits.maxFileBytes) throw tooLarge(input.path, target.size, limits.maxFileBytes);
      await assertGuidanceSeen(guidance, ctx, [directoryOf(input.path)]);
      return { admission: { files: [{ path: input.path, operation: "update" }] } };
    },
    describeCall: (input) => ({
      title: `Edit ${input.path}`,
      summary: editDiff(input.path, input.expected, input.replacement),
    }),
    execute: (input, ctx) =>
      refusalsAsResults(async () => {
        // Approval may have waited: the file is checked again as it is now.
        checkInput(input);
        const { root } = context.bind(ctx);
        const { resolveForWrite, readWholeFile, writeFileAtomically } = await filesystem();
        const target = await resolveForWrite(root, input.path);
        const content = Buffer.from(await readWholeFile(target, limits.maxFileBytes));
        const expected = Buffer.from(input.expected, "utf8");
        const at = content.indexOf(expected);
        if (at === -1) {
          throw new ToolInputError(
            "expected_not_found",
            `expected does not occur in ${JSON.stringify(input.path)}. Read the file again and copy the text exactly, whitespace included.`,
          );
        }
        const occurrences = occurrencesOf(content, expected);
        if (occurrences.length > 1) {
          const lines = occurrences.slice(0, shownLines).map((offset) => lineOf(content, offset));
          throw new ToolInputError(
            "expected_ambiguous",
            `expected occurs ${occurrences.length} times in ${JSON.stringify(input.path)} (at lines ${lines.join(", ")}${occurrences.length > shownLines ? ", ..." : ""}). Include more surrounding text so it occurs once.`,
          );
        }
        const updated = Buffer.concat([
          content.subarray(0, at),
          Buffer.from(input.replacement, "utf8"),
          content.subarray(at + expected.length),
        ]);
        await writeFileAtomically(target, updated);
        const receipt: EditReceipt = { path: input.path, operation: "updated", edits: 1 };
        return jsonResult(receipt);
      }),
  });
}

/** The file system half of an edit, loaded on the first edit rather than with the package. */
async function filesystem() {
  const [{ readWholeFile }, { resolveForWrite }, { writeFileAtomically }] = await Promise.all([
    import("../../../platform/paths/open-file.js"),
    import("../../../platform/paths/resolve-write.js"),
    import("../../../platform/paths/write-file.js"),
  ]);
  return { readWholeFile, resolveForWrite, writeFileAtomically };
}

/** Start offsets of the occurrences of `needle`, overlapping ones included. */
function occurrencesOf(haystack: Buffer, needle: Buffer): number[] {
  const found: number[] = [];
  let at = haystack.indexOf(needle);
  while (at !== -1) {
    found.push(at);
    at = haystack.indexOf(needle, at + 1);
  }
  return found;
}

/** The 1-based line of a byte offset. */
function lineOf(content: Buffer, offset: number): number {
  let line = 1;
  let at = content.indexOf(0x0a);
  while (at !== -1 && at < offset) {
    line++;
    at = content.indexOf(0x0a, at + 1);
  }
  return line;
}

function tooLarge(path: string, size: number, limit: number): ToolInputError {
  return new ToolInputError(
    "file_too_large",
    `${JSON.stringify(path)} is ${size} bytes, over the limit of ${limit} for editing. Edit a smaller file, or ask for a command to change this one.`,
  );
}
