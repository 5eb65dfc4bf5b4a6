import { type CreateSessionOptions, createNodeRunner, type NodeRunnerOptions, type Session } from "../../src/index.js";

/** A Session on a Runner of its own, and how to close both. */
export interface OwnRunnerSession {
  readonly session: Session;
  /** Closes the Runner, and so the Session. */
  close(): Promise<void>;
}

/** Creates a Runner with `options` and opens one Session on it; closes the Runner again if the Session fails to open. */
export async function openOnOwnRunner(
  options: NodeRunnerOptions,
  sessionOptions: CreateSessionOptions = {},
): Promise<OwnRunnerSession> {
  const runner = await createNodeRunner(options);
  try {
    const session = await runner.createSession(sessionOptions);
    return { session, close: () => runner.close() };
  } catch (error) {
    await runner.close();
    throw error;
  }
}
