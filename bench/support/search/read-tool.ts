// The real `read_workspace_file` tool of the built node-runner package, bound to a directory
// and called as the Runner would call it once permission is granted: its instructions plugin
// is applied to a stand-in host (so the tools accept calls), and each call gets a minimal
// tool context of one Session and one Run.
import { pathToFileURL } from "node:url";
import type { Tool, ToolContext, ToolResult } from "@castellan/harness";
import {
  createRootBoundWorkspaceTools,
  createWorkspaceInstructionsPlugin,
  type NodeRunnerHost,
} from "../../../packages/node-runner/dist/index.js";

/** The part of a `read_workspace_file` page the bench checks. */
export interface ReadToolPage {
  readonly startLine: number | null;
  readonly text: string;
  readonly bytes: number;
  readonly totalBytes: number;
}

/** Reads one page of `path` from `startLine` through the tool; throws on an error result. */
export type ReadFromLine = (path: string, startLine: number) => Promise<ReadToolPage>;

/** The tool context of one call: Session `bench`, Run `deep-read`, never aborted. */
function toolContext(toolName: string): ToolContext {
  return {
    turn: 1,
    params: {},
    state: {},
    toolCalls: () => [],
    hostedToolCalls: () => [],
    resource: () => {
      throw new Error("no resources here");
    },
    setState: () => undefined,
    runAgent: () => Promise.reject(new Error("The bench runs no child agents.")),
    sandbox: undefined,
    resources: [],
    sessionId: "bench",
    runId: "deep-read",
    toolCallId: "call-1",
    toolName,
    agent: { id: "bench.search" },
    signal: new AbortController().signal,
    idempotencyKey: "key",
  };
}

/** Binds the workspace tools to `directory` and returns a reader that calls `read_workspace_file`. */
export function bindReadTool(directory: string): ReadFromLine {
  const root = pathToFileURL(`${directory}/`);
  const instructions = createWorkspaceInstructionsPlugin({ rootDirectory: root, record: () => undefined });
  // The plugin registers only a beforeModel hook; no model request is ever made here.
  const host = { hooks: { beforeModel: () => undefined, sessionEnd: () => undefined } } as unknown as NodeRunnerHost;
  instructions.apply(host);
  const tools = createRootBoundWorkspaceTools({ root, instructions });
  const tool = tools.find((candidate) => candidate.name === "read_workspace_file") as Tool;
  const context = toolContext(tool.name);
  return async (path, startLine) => {
    const result = (await tool.execute({ path, startLine }, context)) as ToolResult;
    const block = result.content[0];
    const text = block?.type === "text" ? block.text : "";
    if (result.isError) throw new Error(`read_workspace_file failed: ${text.slice(0, 500)}`);
    return JSON.parse(text) as ReadToolPage;
  };
}
