import { fileURLToPath } from "node:url";
import { type Agent, type Capability, defineAgent } from "@castellan/harness";
import { skills, workspace } from "@castellan/node-runner";
import { createFileTaskStore, createTaskTools } from "@castellan/node-runner/tasks";
import { liveDirectory, tasksDirectory } from "../home/live-directory.js";
import type { CliParams } from "./cli-params.js";

/** The id of the Agent every `castellan` Session runs. */
export const cliAgentId = "castellan.cli";

/** The model name the Agent declares; `castellan` binds it to the provider it finds (models/). */
export const cliModel = "coding/primary";

/** The Chromium the `--browser` tools launch: `CASTELLAN_CHROMIUM`, else `/usr/bin/chromium`. */
export function chromiumPath(env: NodeJS.ProcessEnv): string {
  return env.CASTELLAN_CHROMIUM?.trim() || "/usr/bin/chromium";
}

/** The Agent's working method. */
export const cliInstructions = [
  "You are a coding agent working in the user's project, the workspace of this Session.",
  "Read before you change: find the code a request is about, change as little as does the job, and run the project's own checks.",
  "Keep a task list for work of more than a few steps.",
  "When a person or a policy refuses a step, do not work around it: say what was refused.",
  "Answer briefly, and say what you changed and how you checked it.",
].join("\n");

/** What the Agent is built from besides its params. */
export interface CliAgentOptions {
  /** `CASTELLAN_HOME`: its task lists live there, and sandboxed commands may not read it. */
  readonly home: string;
  /** The environment `CASTELLAN_CHROMIUM` is read from. */
  readonly env: NodeJS.ProcessEnv;
}

/**
 * The `castellan.cli` Agent of a Session's params: the workspace rooted at its directory (in
 * the OS sandbox with no network and no reads of `CASTELLAN_HOME` or the live sockets, or
 * uncontained with `sandbox: "none"`), the task tools, the project's skills when it has a
 * `.castellan/skills/`, and with `browser` the managed Chromium's tools.
 */
export async function cliAgent(params: CliParams, options: CliAgentOptions): Promise<Agent> {
  const capabilities: Capability[] = [
    params.sandbox === "os"
      ? workspace({
          root: params.workspace,
          sandbox: "os",
          network: { allowedDomains: [], allowRequests: true },
          filesystem: { denyRead: [options.home, liveDirectory(options.home)] },
        })
      : workspace({ root: params.workspace, sandbox: "none" }),
  ];
  if (params.skills !== null) capabilities.push(skills({ directory: new URL(params.skills) }));
  if (params.browser) {
    // Loaded only for --browser: playwright-core stays out of every other start.
    const { browser } = await import("@castellan/connectors/browser");
    capabilities.push(browser({ mode: "managed", executablePath: chromiumPath(options.env) }));
  }
  const tasks = createFileTaskStore({ directory: tasksDirectory(options.home) });
  return defineAgent(cliAgentId, {
    model: cliModel,
    params: ["workspace", "sandbox", "browser", "skills"],
    instructions: { role: cliInstructions, workspace: () => `The project is ${fileURLToPath(params.workspace)}.` },
    tools: [...createTaskTools(tasks)],
    capabilities,
  });
}
