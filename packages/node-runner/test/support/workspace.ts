import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { JsonValue, Tool, ToolContext, ToolResult } from "@castellan/harness";
import { isToolInputError } from "@castellan/harness";
import { writeSandboxLayout } from "./paths-fixture.ts";

/** Writes `files` (workspace path → text or bytes) under `root`, creating directories. */
export async function writeTree(root: string, files: Readonly<Record<string, string | Uint8Array>>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const absolute = join(root, path);
    await mkdir(dirname(absolute), { recursive: true });
    await writeFile(absolute, content);
  }
}

/**
 * A temp layout: `root/` (the workspace) beside `root-evil/` and `outside.txt`, which must never
 * change; the {@link writeSandboxLayout} layout, in `base` (a test's temporary directory, which
 * the caller removes).
 */
export async function workspaceLayout(
  base: string,
): Promise<{ root: string; rootUrl: URL; evil: string; outside: string }> {
  const { root, rootUrl, evil, outsideFile } = await writeSandboxLayout(base);
  return { root, rootUrl, evil, outside: outsideFile };
}

/** The tool context a workspace tool is given, for calling it directly. */
export function toolContext(overrides: Partial<ToolContext> = {}): ToolContext {
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
    runAgent: () => Promise.reject(new Error("This test tool context runs no child agents.")),
    sandbox: undefined,
    resources: [],
    sessionId: "session-1",
    runId: "run-1",
    toolCallId: "call-1",
    toolName: "tool",
    agent: { id: "test.workspace" },
    signal: new AbortController().signal,
    idempotencyKey: "key",
    ...overrides,
  };
}

/**
 * Calls a tool as the Runner would once permission is granted: `admit` (a refusal becomes an
 * error result starting with its code), then `execute` with the admission.
 */
export async function callTool(
  tool: Tool,
  input: JsonValue,
  context: Partial<ToolContext> = {},
): Promise<{ result: ToolResult; admission?: JsonValue; text: string; json: () => any }> {
  const ctx = toolContext({ toolName: tool.name, ...context });
  let admission: JsonValue | undefined;
  let finalInput = input;
  if (tool.admit) {
    try {
      const admitted = await tool.admit(input, ctx);
      admission = admitted.admission;
      if (admitted.input !== undefined) finalInput = admitted.input as JsonValue;
    } catch (error) {
      if (!isToolInputError(error)) throw error;
      const result: ToolResult = { content: [{ type: "text", text: error.resultText }], isError: true };
      return withText(result);
    }
  }
  const output = (await tool.execute(finalInput, {
    ...ctx,
    ...(admission !== undefined ? { admission } : {}),
  })) as ToolResult;
  return { ...withText(output), ...(admission !== undefined ? { admission } : {}) };
}

function withText(result: ToolResult) {
  const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
  return { result, text, json: () => JSON.parse((result.content[0] as { text: string }).text) };
}
