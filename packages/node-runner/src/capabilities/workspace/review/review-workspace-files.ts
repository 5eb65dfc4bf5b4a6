import {
  defineAgent,
  defineTool,
  errorMessage,
  isModelRuntime,
  type JsonValue,
  type ModelBinding,
  type ModelRuntime,
  type Tool,
  ToolInputError,
} from "@castellan/harness";
import { InvalidOptionsError } from "../../../kernel/errors/errors.js";
import { openSession } from "../../../kernel/runner/open-session.js";
import { createMemorySessionStore } from "../../../kernel/store/memory-store.js";
import { bindWorkspaceRootSync } from "../../../platform/paths/root.js";
import { trackerOf } from "../instructions/guidance-check.js";
import type { GuidanceSource } from "../instructions/guidance-source.js";
import type { WorkspaceInstructionsPlugin } from "../instructions/instructions-plugin.js";
import { refusalsAsResults, textResult } from "../tools/results.js";
import { directoryOf } from "../tools/workspace-context.js";
import { maxReviewBytes, maxReviewFiles, maxTaskBytes, readReviewInput } from "./review-input.js";
import { reviewerInstructions, reviewMessage } from "./review-prompt.js";

/** The model a review uses: the active Run's own, as the host's model binding owner knows it. */
export interface ReviewModel {
  readonly specifier: string;
  /** Opaque: echoed in the result, never sent (requests carry no reasoning field). */
  readonly thinkingLevel?: JsonValue;
  readonly runtime: ModelRuntime;
}

/** Options of {@link createWorkspaceReviewTool}. */
export interface WorkspaceReviewToolOptions {
  /** A `file:` URL of the workspace root; the same as the instructions plugin's. */
  readonly rootDirectory: URL | string;
  /** The `createWorkspaceInstructionsPlugin` object registered in the parent's Runner. */
  readonly instructions: WorkspaceInstructionsPlugin;
  /** The active Run's effective model, never a new connection or the Program's defaults. */
  readonly model: (run: { readonly sessionId: string; readonly runId: string }) => ReviewModel | Promise<ReviewModel>;
}

/** The input of `review_workspace_files`. */
export interface ReviewWorkspaceFilesInput {
  readonly task: string;
  readonly paths: readonly string[];
}

/** Bytes of the result's JSON, at most; the review text is cut to fit. */
export const maxReviewResultBytes = 16_384;

/**
 * `review_workspace_files({ task, paths })`: an advisory second look at up to 12 UTF-8 files
 * (128 KiB in all) by the active Run's model, in an isolated one-turn in-memory Session with
 * no tools and none of the parent's history, given the frozen guidance that governs those
 * files. Everything is checked before the reviewer is asked. The result (at most 16 KiB):
 * `{ review, truncated, files: [{ path, bytes, sha256 }], instructions: [{ path, sha256 }],
 * child: { sessionId, runId }, model }`. A model failure is an error result, never a review.
 * It runs no tests and repairs nothing; it spends a model request, so it is not read-only.
 */
export function createWorkspaceReviewTool(options: WorkspaceReviewToolOptions): Tool<ReviewWorkspaceFilesInput> {
  const where = "createWorkspaceReviewTool";
  const guidance = trackerOf(options.instructions, where);
  const root = bindWorkspaceRootSync(options.rootDirectory);
  if (guidance.root.realPath !== root.realPath) {
    throw new InvalidOptionsError(
      `${where}: the instructions plugin reads guidance under ${guidance.root.realPath}, but the review's root is ${root.realPath}; give both the same directory.`,
    );
  }
  if (typeof options.model !== "function") throw new InvalidOptionsError(`${where}: model must be a function.`);
  return defineTool<ReviewWorkspaceFilesInput>({
    name: "review_workspace_files",
    description:
      "Ask for an independent review of up to 12 workspace files against a task. The reviewer sees only those files and their repository guidance; it runs nothing. Its feedback is advice: decide yourself what to change and verify it.",
    inputSchema: {
      type: "object",
      properties: {
        task: { type: "string", minLength: 1, description: `What to review for (at most ${maxTaskBytes} bytes).` },
        paths: {
          type: "array",
          items: { type: "string" },
          minItems: 1,
          maxItems: maxReviewFiles,
          uniqueItems: true,
          description: `Files to review, relative to the workspace root (at most ${maxReviewBytes} bytes in all).`,
        },
      },
      required: ["task", "paths"],
      additionalProperties: false,
    },
    execute: (input, ctx) =>
      refusalsAsResults(async () => {
        const files = await readReviewInput(root, input.task, input.paths);
        const run = guidance.registered ? guidance.run(ctx.sessionId, ctx.runId) : undefined;
        if (!run) {
          throw new ToolInputError(
            "instructions_not_registered",
            "The workspace instructions plugin is not registered in the Runner, so the files' guidance is unavailable. The application must add it to the Runner's plugins.",
          );
        }
        const sources: GuidanceSource[] = [];
        for (const file of files) {
          const directory = directoryOf(file.path);
          await run.discover(directory);
          for (const source of run.sourcesFor(directory)) if (!sources.includes(source)) sources.push(source);
        }
        const unreadable = sources.filter((source) => source.status === "unreadable");
        if (unreadable.length > 0) {
          throw new ToolInputError(
            "guidance_unavailable",
            `Guidance for these files cannot be read: ${unreadable.map((source) => `${JSON.stringify(source.path)} (${source.status === "unreadable" ? source.reason : ""})`).join("; ")}. Fix or remove it, then ask again.`,
          );
        }
        const model = await options.model({ sessionId: ctx.sessionId, runId: ctx.runId });
        if (!model || typeof model.specifier !== "string" || !isModelRuntime(model.runtime)) {
          throw new Error("The review's model callback returned no { specifier, runtime }.");
        }
        const binding: ModelBinding = {
          specifier: model.specifier,
          stream: (request, call) => model.runtime.stream(request, call),
        };
        const reviewer = defineAgent("castellan.workspace-reviewer", {
          model: binding,
          instructions: reviewerInstructions,
        });
        const child = await openSession({
          agent: reviewer,
          store: createMemorySessionStore(),
          permissions: "read-only",
          limits: { maxTurns: 1 },
        });
        let review: string;
        let childRunId: string;
        try {
          const running = child.run(reviewMessage(input.task, files, sources), { signal: ctx.signal });
          childRunId = running.id;
          try {
            review = (await running.result).text;
          } catch (error) {
            return textResult(
              `review_failed: The reviewer's model request failed, so there is no review: ${errorMessage(error)}`,
              true,
            );
          }
        } finally {
          // Closing waits for the child's Run, so an aborted parent call settles after it drained.
          await child.close();
        }
        return textResult(
          boundedResult(
            {
              files: files.map(({ path, bytes, sha256 }) => ({ path, bytes, sha256 })),
              instructions: sources.map((source) => ({
                path: source.path,
                sha256: source.status === "read" ? source.sha256 : "",
              })),
              child: { sessionId: child.id, runId: childRunId },
              model: {
                specifier: model.specifier,
                ...(model.thinkingLevel !== undefined ? { thinkingLevel: model.thinkingLevel } : {}),
              },
            },
            review,
          ),
        );
      }),
  });
}

/** The result's JSON with the review cut (at a character boundary) so the whole fits {@link maxReviewResultBytes}. */
function boundedResult(rest: Record<string, unknown>, review: string): string {
  const whole = JSON.stringify({ review, truncated: false, ...rest });
  if (Buffer.byteLength(whole) <= maxReviewResultBytes) return whole;
  let cut = review;
  while (true) {
    const shorter = Math.floor(
      cut.length *
        (maxReviewResultBytes / Buffer.byteLength(JSON.stringify({ review: cut, truncated: true, ...rest }))) *
        0.97,
    );
    cut = cut.slice(0, Math.max(0, Math.min(shorter, cut.length - 1)));
    // Never end on half a surrogate pair.
    if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
    const text = JSON.stringify({ review: cut, truncated: true, ...rest });
    if (Buffer.byteLength(text) <= maxReviewResultBytes || cut.length === 0) return text;
  }
}
