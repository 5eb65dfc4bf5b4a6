// Internal to platform/paths: telling whether a path still names the file validated.
import type { WorkspaceStats } from "./operations.js";

/** What makes a file the same file: its device and inode numbers. */
export interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
}

/** The identity in a stat result. */
export function identityOf(stats: WorkspaceStats): FileIdentity {
  return { dev: stats.dev, ino: stats.ino };
}

/** True when both name the same file. */
export function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}
