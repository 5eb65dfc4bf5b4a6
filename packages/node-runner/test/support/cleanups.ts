import { afterEach } from "vitest";
import type { Session } from "../../src/index.js";

/** Cleanups of the calling test file, run after each test, latest first, whatever the test did. */
export interface Cleanups {
  /** Runs `cleanup` after the current test. */
  push(cleanup: () => Promise<void> | void): void;
  /** Closes `session` after the current test (ignoring a close failure) and returns it. */
  closeLater(session: Session): Session;
}

/** Registers an afterEach hook in the calling file that runs the cleanups its tests push. */
export function cleanupAfterEach(): Cleanups {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    push: (cleanup) => {
      cleanups.push(cleanup);
    },
    closeLater: (session) => {
      cleanups.push(() => session.close().catch(() => undefined));
      return session;
    },
  };
}
