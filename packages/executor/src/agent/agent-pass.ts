import { type Capability, defineAgent, type RunEvent } from "@castellan/harness";
import {
  createFileSessionStore,
  createFileTaskStore,
  createNodeRunner,
  createTaskTools,
  type EnvironmentPolicy,
  type NodeRunnerPlugin,
  runSessionCommand,
  type SandboxFilesystemPolicy,
  type SessionStore,
  type TaskPort,
} from "@castellan/node-runner";
import { jobWorkspace } from "../commands/job-workspace.js";
import type { Redactor } from "../log/redactor.js";
import type { ProbeRunner } from "../probes/probe-runner.js";
import { commandProbe } from "../probes/runtime-probe.js";
import type { JobProgress } from "../registry/job-record.js";
import type { BodyModel, ModelFactory, PassInfo } from "./model-factory.js";

/** The model name an executor agent declares; each pass binds it with the job's model factory. */
const jobModel = "executor/job";

/** What one agent pass needs. */
export interface AgentPassOptions {
  readonly jobId: string;
  readonly pass: PassInfo;
  /** The checkout the workspace is rooted at. */
  readonly checkout: string;
  /**
   * The pass's instructions, composed from the appendix (the environment inventory; empty
   * without one) once the Session is open.
   */
  readonly instructions: (appendix: string) => string;
  /** More capabilities of the pass's agent (the body's MCP servers). Default none. */
  readonly capabilities?: readonly Capability[];
  /** More plugins of the pass's Runner (the body's skills). Default none. */
  readonly plugins?: readonly NodeRunnerPlugin[];
  /** Skills the agent declares, by name (resolved by `plugins`). Default none. */
  readonly skills?: readonly string[];
  readonly network:
    | { readonly allowedDomains?: readonly string[]; readonly deniedDomains?: readonly string[] }
    | undefined;
  readonly model: BodyModel;
  readonly modelFactory: ModelFactory;
  /** The job's transcript directory: one Session log per pass. */
  readonly transcriptDirectory: string;
  /** Where the task list is kept: the job's directory, never the checkout. */
  readonly taskDirectory: string;
  /** The environment of the agent's commands. */
  readonly environment: EnvironmentPolicy;
  /** Added to the workspace's filesystem policy (the server's own paths denied, the job's home writable). */
  readonly filesystem?: SandboxFilesystemPolicy;
  readonly redactor: Redactor;
  readonly signal: AbortSignal;
  /** Each Run event, as it happens (the watchdogs' activity). */
  readonly onEvent?: (event: RunEvent) => void;
  /** The task list's counts after each change. */
  readonly onProgress?: (progress: JobProgress) => void;
  /**
   * Text appended once onto the instructions, computed after the Session opened with a runner
   * of probe commands in its sandbox (the environment inventory). Default none.
   */
  readonly appendix?: (probe: ProbeRunner) => Promise<string>;
  /** Called right before the pass's Run starts (after the appendix). */
  readonly onRunStart?: () => void;
}

/** A session store whose records are scrubbed of the job's credentials before they are appended. */
function scrubbingStore(inner: SessionStore, redactor: Redactor): SessionStore {
  return {
    async open(sessionId, options) {
      const log = await inner.open(sessionId, options);
      return {
        sessionId: log.sessionId,
        records: log.records,
        append: (records, appendOptions) => log.append(redactor.scrubJson(records), appendOptions),
        close: () => log.close(),
      };
    },
  };
}

async function progressOf(tasks: TaskPort, sessionId: string): Promise<JobProgress> {
  const { tasks: list } = await tasks.load(sessionId);
  return {
    completed: list.filter((task) => task.status === "completed").length,
    inProgress: list.filter((task) => task.status === "in_progress").length,
    total: list.length,
  };
}

const taskWrites = new Set(["create_task", "revise_task", "update_task_progress"]);

/**
 * One agent pass: a new Session (named for the pass) on its own Runner, the workspace rooted at
 * the checkout with commands in the OS sandbox and exactly the body's network, the task tools
 * with their list in the job's directory, `full-access` with no approval adapter (the sandbox is
 * the boundary), and the model from the factory. Resolves with the final text and the turns.
 */
export async function runAgentPass(
  options: AgentPassOptions,
): Promise<{ readonly text: string; readonly turns: number }> {
  const tasks = createFileTaskStore({ directory: options.taskDirectory });
  let appended = "";
  const agent = defineAgent("executor.coder", {
    model: jobModel,
    instructions: { job: () => options.instructions(appended) },
    tools: [...createTaskTools(tasks)],
    ...(options.skills && options.skills.length > 0 ? { skills: [...options.skills] } : {}),
    capabilities: [
      ...(options.capabilities ?? []),
      jobWorkspace({
        root: options.checkout,
        network: options.network,
        environment: options.environment,
        filesystem: options.filesystem,
      }),
    ],
  });
  const store = scrubbingStore(createFileSessionStore({ directory: options.transcriptDirectory }), options.redactor);
  const runner = await createNodeRunner({
    agent,
    permissions: "full-access",
    plugins: [
      ...(options.plugins ?? []),
      {
        name: "executor.job",
        apply: (host) => {
          host.registerModel(jobModel, options.modelFactory(options.model, options.pass));
          host.registerSessionStore(store);
        },
      },
    ],
  });
  try {
    const session = await runner.createSession({ id: options.pass.name, signal: options.signal });
    if (options.appendix) {
      appended = await options.appendix(commandProbe((request) => runSessionCommand(session, request), options.signal));
    }
    options.onRunStart?.();
    const run = session.run("Carry out the task your instructions describe, in the workspace.", {
      signal: options.signal,
    });
    for await (const event of run) {
      options.onEvent?.(event);
      if (event.kind === "tool-end" && taskWrites.has(event.toolName) && options.onProgress) {
        options.onProgress(await progressOf(tasks, session.id));
      }
    }
    const result = await run.result;
    await session.close();
    return { text: result.text, turns: result.turns };
  } finally {
    await runner.close();
    await tasks.close();
  }
}
