import { chmod, lstat, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { contextDirectory } from "../git/checkout.js";
import type { ContextImageKind } from "./context-staging.js";

/** What is at a staged file's destination: nothing to keep, a file to keep, or something in the way. */
export type DestinationState =
  | { readonly state: "missing" }
  | { readonly state: "present" }
  | { readonly state: "blocked"; readonly reason: string };

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Looks at a destination without following a symlink: absent or an empty regular file is
 * `missing` (fetch it); a non-empty regular file is `present` (an earlier staging's, kept); a
 * symlink or anything else is `blocked`, since writing there could land outside the checkout.
 */
export async function inspectDestination(path: string): Promise<DestinationState> {
  try {
    const stats = await lstat(path);
    if (stats.isSymbolicLink()) return { state: "blocked", reason: "symlink in the way" };
    if (!stats.isFile()) return { state: "blocked", reason: "non-regular file in the way" };
    return stats.size > 0 ? { state: "present" } : { state: "missing" };
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { state: "missing" };
    return { state: "blocked", reason: `destination unreadable (${errorCode(error) ?? "error"})` };
  }
}

/**
 * Makes `<checkout>/.castellan-context/<kind>/` one level at a time, each level it creates left
 * 0700. Returns the absolute directory, or a reason when a level is a symlink or not a
 * directory: the checkout is the repository's, and a committed symlink there must not send
 * the images (or the mkdir) somewhere else. Never throws.
 */
export async function prepareContextDirectory(
  checkout: string,
  kind: ContextImageKind,
): Promise<{ readonly directory: string } | { readonly reason: string }> {
  let directory = checkout;
  for (const level of [contextDirectory.replace(/\/$/, ""), kind]) {
    directory = join(directory, level);
    let created = false;
    try {
      await mkdir(directory, { mode: 0o700 });
      created = true;
    } catch (error) {
      if (errorCode(error) !== "EEXIST")
        return { reason: `context directory not made (${errorCode(error) ?? "error"})` };
    }
    try {
      const stats = await lstat(directory);
      if (stats.isSymbolicLink() || !stats.isDirectory())
        return { reason: "context directory is not a plain directory" };
      // The mode mkdir gives is masked by the umask.
      if (created) await chmod(directory, 0o700);
    } catch (error) {
      return { reason: `context directory not made (${errorCode(error) ?? "error"})` };
    }
  }
  return { directory };
}
