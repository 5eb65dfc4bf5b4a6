import { defineAgent } from "@castellan/harness";
import {
  createMemorySessionStore,
  createNodeRunner,
  type EnvironmentPolicy,
  type SandboxFilesystemPolicy,
  type Session,
} from "@castellan/node-runner";
import { jobWorkspace } from "./job-workspace.js";

/** Where a server command Session is rooted, and what its commands may reach. */
export interface CommandSessionOptions {
  /** The directory the workspace is rooted at: the checkout, or a proof worktree. */
  readonly root: string;
  readonly environment: EnvironmentPolicy;
  /** The job's network rules; default none (no network at all). */
  readonly network?: { readonly allowedDomains?: readonly string[]; readonly deniedDomains?: readonly string[] };
  readonly filesystem?: SandboxFilesystemPolicy;
  readonly signal: AbortSignal;
}

const commandModel = "executor/commands";

/** A server command Session that stays open across calls, closed by its owner. */
export interface OpenCommandSession {
  readonly session: Session;
  /** Closes the Session and its Runner; what is still running in it is ended. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens a Session whose only capability is a workspace rooted at `root` with commands in the
 * OS sandbox, under the job's environment, network and filesystem policies (the same ones as
 * the agent's commands). The server runs its own commands there with `runSessionCommand`; the
 * Session's model refuses every call, since nothing here asks one. An OS sandbox that will not
 * open rejects. The caller closes it.
 */
export async function openCommandSession(options: CommandSessionOptions): Promise<OpenCommandSession> {
  const agent = defineAgent("executor.commands", {
    model: commandModel,
    instructions: "Server commands.",
    capabilities: [jobWorkspace(options)],
  });
  const runner = await createNodeRunner({
    agent,
    permissions: "full-access",
    plugins: [
      {
        name: "executor.commands",
        apply: (host) => {
          host.registerModel(commandModel, {
            // biome-ignore lint/correctness/useYield: a command Session never calls its model.
            async *stream() {
              throw new Error("A server command Session has no model.");
            },
          });
          host.registerSessionStore(createMemorySessionStore());
        },
      },
    ],
  });
  let session: Session;
  try {
    session = await runner.createSession({ id: "commands", signal: options.signal });
  } catch (error) {
    await runner.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    session,
    close: () => {
      closing ??= session.close().finally(() => runner.close());
      return closing;
    },
  };
}

/** {@link openCommandSession} around `use`, closed after it whatever it did. */
export async function withCommandSession<Result>(
  options: CommandSessionOptions,
  use: (session: Session) => Promise<Result>,
): Promise<Result> {
  const opened = await openCommandSession(options);
  try {
    return await use(opened.session);
  } finally {
    await opened.close();
  }
}
