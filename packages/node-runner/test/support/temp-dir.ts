import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";

/** A directory of the calling test file, fresh for each test and removed after it. */
export interface TempDir {
  /** The current test's directory; only set while a test runs. */
  readonly path: string;
}

/** Gives each test of the calling file a fresh temporary directory named after `prefix`, removed after the test. */
export function tempDirPerTest(prefix: string): TempDir {
  let current: string | undefined;
  beforeEach(async () => {
    current = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    if (current !== undefined) await rm(current, { recursive: true, force: true });
    current = undefined;
  });
  return {
    get path() {
      if (current === undefined) throw new Error("The temporary directory exists only while a test runs.");
      return current;
    },
  };
}

/**
 * Makes further temporary directories inside a test (each named after its prefix, returned by
 * real path) and removes every one after the test.
 */
export function extraTempDirs(): (prefix: string) => Promise<string> {
  const made: string[] = [];
  afterEach(async () => {
    for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
  });
  return async (prefix) => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
    made.push(dir);
    return dir;
  };
}
