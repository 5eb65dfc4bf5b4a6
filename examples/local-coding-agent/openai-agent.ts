// The coding agent and its reviewer for a real model, declared without naming a provider: the
// same agents as agent.ts (ids, instructions, skills, hosted web search, read-only reviewer), with
// the coder's commands in the OS sandbox reaching only the given hosts, and no docs MCP server
// (the docs are read with the workspace tools). openai.ts binds "coding/primary" to a model.
import type { Agent } from "@castellan/harness";
import { workspace } from "@castellan/node-runner";
import { coderAgent, docsPath, reviewerAgent, workspaceUrl } from "./agent.ts";

/** Options of {@link openaiCodingAgents}. */
export interface OpenaiCodingAgentsOptions {
  /** The hosts the coder's sandboxed commands may reach (e.g. `registry.npmjs.org`); empty: none. */
  readonly allowedDomains: readonly string[];
}

/**
 * The coder and its reviewer. The coder has the workspace (files, patches, and commands in
 * bubblewrap reaching only `allowedDomains`), the project's skills, the hosted web search, and the
 * reviewer as a child agent that may only read.
 */
export function openaiCodingAgents(options: OpenaiCodingAgentsOptions): { coder: Agent; reviewer: Agent } {
  const reviewer = reviewerAgent();
  const coder = coderAgent({
    docs: (params) =>
      `The project's documents (the issue among them) are in its docs/ folder, ${docsPath(params)}; read them with the workspace tools.`,
    workspace: workspace({
      root: workspaceUrl,
      sandbox: "os",
      network: { allowedDomains: [...options.allowedDomains] },
    }),
    reviewer,
  });
  return { coder, reviewer };
}
