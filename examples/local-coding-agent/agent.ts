// The coding agent and its reviewer, declared once as plain values. Neither names a provider:
// both ask for the model "coding/primary", which run.ts binds to the deterministic mock and
// openai.ts to a real model. Each Session gets the project's file URL as its `workspace` param.
import { fileURLToPath } from "node:url";
import { type Agent, type Capability, defineAgent, hostTool, type JsonObject } from "@castellan/harness";
import { childAgent, mcp, skills, workspace } from "@castellan/node-runner";

/** The model name both agents declare; the host decides what answers it. */
export const codingModel = "coding/primary";

/** The id of the coding agent's Session: one per history directory. */
export const codingSessionId = "local-coding-agent";

/** The tools the reviewer is granted: it reads, it never writes or runs anything. */
export const reviewerGrants = ["list_workspace", "search_workspace", "read_workspace_file"] as const;

/** The project directory a Session works on, from its `workspace` param (a `file:` URL). */
export function workspaceUrl(params: JsonObject): URL {
  const value = params.workspace;
  if (typeof value !== "string") throw new Error('The Session needs a "workspace" param: the project\'s file URL.');
  return new URL(value.endsWith("/") ? value : `${value}/`);
}

/** The absolute path of the project's `docs/` folder, with its trailing slash. */
export function docsPath(params: JsonObject): string {
  return fileURLToPath(new URL("docs/", workspaceUrl(params)));
}

/** server-filesystem's entry in this package's dependencies: started with this Node, never through npx. */
const docsServerEntry = fileURLToPath(import.meta.resolve("@modelcontextprotocol/server-filesystem/dist/index.js"));

/** The reviewer's instructions; the mock model recognises its reviewer requests by the first line. */
export const reviewerInstructions = [
  "You are the code reviewer of a small change.",
  "Read the changed files with the workspace tools; you cannot edit or run anything.",
  "Answer with APPROVE or REQUEST_CHANGES on the first line, then your reasons, one per line.",
].join("\n");

/** The coding agent's working method, shared with the real-model declaration. */
export const coderInstructions = [
  "You are a careful coding agent working on the project in your workspace.",
  "Read the issue first, find the code it is about, change as little as fixes it, then run the project's tests.",
  "Before reporting, hand the change to the reviewer agent, then write the report with the change-report skill.",
  "If a person or a policy refuses a step, do not try to get around it: say what was refused in your report.",
].join("\n");

/** The reviewer: a read-only workspace, no commands, no sandbox. */
export function reviewerAgent(): Agent {
  return defineAgent("example.reviewer", {
    model: codingModel,
    params: ["workspace"],
    instructions: reviewerInstructions,
    capabilities: [workspace({ root: workspaceUrl, readOnly: true })],
  });
}

/** Options of {@link codingAgents}. */
export interface CodingAgentsOptions {
  /** `"os"` runs the coder's commands in bubblewrap; `"none"` runs them uncontained. */
  readonly sandbox: "os" | "none";
}

/**
 * The coder and its reviewer. The coder has the workspace (files, patches and commands, with no
 * network for commands), the project's skills, the hosted web search, the project's docs
 * through an MCP filesystem server, and the reviewer as a child agent that may only read.
 */
export function codingAgents(options: CodingAgentsOptions): { coder: Agent; reviewer: Agent } {
  const reviewer = reviewerAgent();
  const coder = coderAgent({
    docs: (params) =>
      `The project's documents (the issue among them) are in ${docsPath(params)}; read them with the docs server's tools.`,
    // No host is reachable from a contained command; an uncontained one has no network policy to give.
    workspace:
      options.sandbox === "os"
        ? workspace({ root: workspaceUrl, sandbox: "os", network: { allowedDomains: [] } })
        : workspace({ root: workspaceUrl, sandbox: "none" }),
    tools: [
      mcp({
        transport: "stdio",
        serverName: "docs",
        command: process.execPath,
        args: (params) => [docsServerEntry, docsPath(params)],
        tools: ["read_text_file", "list_directory"],
        readOnlyTools: ["read_text_file", "list_directory"],
      }),
    ],
    reviewer,
  });
  return { coder, reviewer };
}

/** What the two compositions' coders differ in. */
export interface CoderParts {
  /** The instruction section saying where the project's documents are, from the Session's params. */
  readonly docs: (params: JsonObject) => string;
  /** The coder's `workspace()` capability. */
  readonly workspace: Capability;
  /** More capabilities, between the skills and the reviewer (e.g. the docs server). Default none. */
  readonly tools?: readonly Capability[];
  readonly reviewer: Agent;
}

/** The coder, `example.coder`: its instructions, workspace, skills, hosted web search and the reviewer as a child agent. */
export function coderAgent(parts: CoderParts): Agent {
  return defineAgent("example.coder", {
    model: codingModel,
    params: ["workspace"],
    instructions: { role: coderInstructions, docs: (ctx) => parts.docs(ctx.params) },
    tools: [hostTool("web_search")],
    capabilities: [
      parts.workspace,
      skills({ directory: new URL("./skills/", import.meta.url) }),
      ...(parts.tools ?? []),
      childAgent(parts.reviewer, { toolGrants: [...reviewerGrants] }),
    ],
  });
}
