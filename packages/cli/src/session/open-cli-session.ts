import { mkdir } from "node:fs/promises";
import {
  createFileSessionStore,
  createNodeRunner,
  type NodeRunner,
  type NodeRunnerPlugin,
  type Session,
  SessionLockedError,
} from "@castellan/node-runner";
import { cliAgent, cliModel } from "../agent/cli-agent.js";
import { type CliParams, newCliParams, readCliParams } from "../agent/cli-params.js";
import { newSessionId } from "../agent/session-id.js";
import { sessionsDirectory } from "../home/castellan-home.js";
import { liveDirectory, tasksDirectory } from "../home/live-directory.js";
import { chooseProvider, type ProviderChoice } from "../models/choose-provider.js";
import { providerBinding } from "../models/provider-binding.js";
import { CliError } from "../process/cli-error.js";
import type { AgentFlags } from "./agent-flags.js";
import { findSavedSession } from "./find-session.js";

/** What opening the CLI's Session needs. */
export interface OpenCliSessionOptions {
  readonly home: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly flags: AgentFlags;
  /** The approval adapter plugin (the terminal's, or the headless one). */
  readonly approval: NodeRunnerPlugin;
  /** More plugins, applied after the CLI's own (the live channel, tracing). */
  readonly plugins?: readonly NodeRunnerPlugin[];
  readonly signal?: AbortSignal;
}

/** An open CLI Session with what it runs on; `close` closes the Session, then the Runner. */
export interface CliSession {
  readonly runner: NodeRunner;
  readonly session: Session;
  readonly params: CliParams;
  readonly choice: ProviderChoice;
  /** True when the Session was saved before this process opened it. */
  readonly reopened: boolean;
  close(): Promise<void>;
}

/** A flag given explicitly against a resumed Session's saved value: refused, never silently changed. */
function checkFlagsAgainst(saved: CliParams, flags: AgentFlags, sessionId: string): void {
  const conflicts: string[] = [];
  if (flags.sandbox !== undefined && flags.sandbox !== saved.sandbox) conflicts.push(`--sandbox ${saved.sandbox}`);
  if (flags.browser !== undefined && flags.browser !== saved.browser) {
    conflicts.push(saved.browser ? "--browser" : "no --browser");
  }
  if (conflicts.length > 0) {
    throw new CliError(
      "session_params_mismatch",
      `Session ${sessionId} was started with ${conflicts.join(" and ")}; resume it with the same, or start a new Session.`,
    );
  }
}

/**
 * Opens the Session `castellan` works in: the provider from the environment (exit 2 without
 * one, before anything is written), then the saved Session `--continue` or `--resume` names
 * (with its saved params, so the Agent is rebuilt the same) or a new one, on a file store in
 * `<home>/sessions`.
 */
export async function openCliSession(options: OpenCliSessionOptions): Promise<CliSession> {
  const { flags, home, cwd, env } = options;
  if (flags.continue && flags.resume !== undefined) {
    throw new CliError("invalid_options", "--continue and --resume cannot be used together.");
  }
  const choice = chooseProvider(env, flags.model);
  const store = createFileSessionStore({ directory: sessionsDirectory(home) });
  let id: string;
  let params: CliParams;
  let reopened = false;
  if (flags.continue || flags.resume !== undefined) {
    const signal = options.signal ? { signal: options.signal } : {};
    const summary = findSavedSession(
      await store.list(signal),
      flags.resume !== undefined ? { resume: flags.resume } : { continue: true, cwd },
    );
    if (summary.locked) {
      throw new CliError("session_locked", `Session ${summary.sessionId} is open in another castellan process.`, 1);
    }
    id = summary.sessionId;
    params = readCliParams(summary.params, id);
    checkFlagsAgainst(params, flags, id);
    reopened = true;
  } else {
    id = newSessionId();
    params = newCliParams(cwd, flags.sandbox ?? "os", flags.browser ?? false);
  }
  for (const directory of [home, sessionsDirectory(home), tasksDirectory(home), liveDirectory(home)]) {
    await mkdir(directory, { recursive: true, mode: 0o700 });
  }
  const agent = await cliAgent(params, { home, env });
  const binding = await providerBinding(choice);
  const runner = await createNodeRunner({
    agent,
    permissions: flags.permissions,
    plugins: [
      {
        name: "castellan.cli",
        apply: (host) => {
          host.registerModel(cliModel, binding);
          host.registerSessionStore(store);
        },
      },
      options.approval,
      ...(options.plugins ?? []),
    ],
    ...(options.signal ? { signal: options.signal } : {}),
  });
  let session: Session;
  try {
    session = await runner.createSession({
      id,
      params: { ...params },
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    await runner.close();
    if (error instanceof SessionLockedError) {
      throw new CliError("session_locked", `Session ${id} is open in another castellan process.`, 1);
    }
    throw error;
  }
  return {
    runner,
    session,
    params,
    choice,
    reopened,
    close: async () => {
      try {
        await session.close();
      } finally {
        await runner.close();
      }
    },
  };
}
