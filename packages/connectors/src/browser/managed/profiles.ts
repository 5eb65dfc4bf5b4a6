import { createHash } from "node:crypto";
import { mkdir, readlink } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { BrowserToolError } from "@castellan/node-runner";

// Profiles this process has open, so a second open of one is refused before Chromium would
// hand its command line to the first.
const openProfiles = new Set<string>();

/** The persistent profile directory of a Session: `<profilesDirectory>/<sha256 hex of the Session id>`. */
export function profileDirectory(profilesDirectory: string, sessionId: string): string {
  return join(profilesDirectory, createHash("sha256").update(sessionId).digest("hex"));
}

function inUse(directory: string): BrowserToolError {
  return new BrowserToolError(
    "browser_profile_in_use",
    `This Session's browser profile (${directory}) is in use by another browser; close that Session first.`,
  );
}

async function lockedByLiveProcess(directory: string): Promise<boolean> {
  let target: string;
  try {
    target = await readlink(join(directory, "SingletonLock"));
  } catch {
    return false;
  }
  // Chromium's lock is a symlink to "<host>-<pid>"; a stale one (a crashed browser) is no lock.
  const match = /^(.*)-(\d+)$/.exec(target);
  if (match === null) return false;
  // A lock of another host (a shared directory) cannot be checked: it counts as held.
  if (match[1] !== hostname()) return true;
  try {
    process.kill(Number(match[2]), 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Claims a Session's profile directory (created when missing) for this process; release it
 * once its browser closed.
 *
 * @throws BrowserToolError `browser_profile_in_use` when this process or a live browser holds it.
 */
export async function claimProfile(
  profilesDirectory: string,
  sessionId: string,
): Promise<{ directory: string; release(): void }> {
  const directory = profileDirectory(profilesDirectory, sessionId);
  if (openProfiles.has(directory)) throw inUse(directory);
  openProfiles.add(directory);
  try {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    if (await lockedByLiveProcess(directory)) throw inUse(directory);
  } catch (error) {
    openProfiles.delete(directory);
    throw error;
  }
  let released = false;
  return {
    directory,
    release() {
      if (released) return;
      released = true;
      openProfiles.delete(directory);
    },
  };
}
