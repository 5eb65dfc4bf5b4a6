import { defineTool, errorMessage, type Tool, ToolInputError } from "@castellan/harness";
import type { WorkspacePublisher } from "./options.js";
import type { WorkspaceScopeOf } from "./workspace-session.js";

/** The input of `publish_workspace`. */
export interface PublishWorkspaceInput {
  /** What changed and why, for the delivery (a commit message, a pull request body): 1 to 16,384 characters after trimming. */
  readonly summary: string;
}

/** Longest summary accepted, in characters. */
export const maxPublishSummaryLength = 16_384;

function checkSummary(summary: unknown): string {
  const trimmed = typeof summary === "string" ? summary.trim() : "";
  if (trimmed === "" || trimmed.length > maxPublishSummaryLength) {
    throw new ToolInputError(
      "summary_invalid",
      `summary must say what changed: non-empty, at most ${maxPublishSummaryLength.toLocaleString("en")} characters. Nothing was published.`,
    );
  }
  return trimmed;
}

/**
 * `publish_workspace({ summary })`: hands the Session's root and the summary to the host's
 * publisher, and succeeds only when it answers `{ reference, verified: true }`; any other
 * answer, or a failure, is an error result saying nothing was published. Not read-only.
 */
export function createPublishWorkspaceTool(
  publisher: WorkspacePublisher,
  scopeOf: WorkspaceScopeOf,
): Tool<PublishWorkspaceInput> {
  return defineTool<PublishWorkspaceInput>({
    name: "publish_workspace",
    description:
      "Deliver the workspace's changes (for example push a branch and open a pull request) once the work is done and checked. Give a summary of what changed and why. Succeeds only when the delivery is verified; returns { published: true, reference }.",
    inputSchema: {
      type: "object",
      properties: { summary: { type: "string", minLength: 1, description: "What changed and why." } },
      required: ["summary"],
      additionalProperties: false,
    },
    admit(input) {
      return { admission: { policyKey: "publish_workspace", summary: checkSummary(input.summary) } };
    },
    async execute(input, ctx) {
      const summary = checkSummary(input.summary);
      const session = scopeOf(ctx);
      let answer: unknown;
      try {
        answer = await publisher.publish({
          sessionId: ctx.sessionId,
          runId: ctx.runId,
          toolCallId: ctx.toolCallId,
          root: new URL(session.root.url.href),
          summary,
          signal: ctx.signal,
        });
      } catch (error) {
        return {
          content: [
            {
              type: "text",
              text: `not published: the publisher failed: ${errorMessage(error)}`,
            },
          ],
          isError: true,
        };
      }
      const publication = answer as { reference?: unknown; verified?: unknown } | null | undefined;
      if (
        publication?.verified !== true ||
        typeof publication.reference !== "string" ||
        publication.reference.trim() === ""
      ) {
        return {
          content: [
            {
              type: "text",
              text: "not published: the publisher returned no verified delivery reference, so the delivery cannot be confirmed.",
            },
          ],
          isError: true,
        };
      }
      return JSON.stringify({ published: true, reference: publication.reference });
    },
  });
}
