import { existsSync, realpathSync } from "node:fs";
import { dirname, resolve, sep } from "node:path";
import type { ResolvedSandboxPolicy } from "./config.js";
import { SandboxConfigError } from "./errors.js";
import { sandboxRuntimePackagePath } from "./runtime-adapter.js";

/**
 * Refuses a policy under which a sandboxed command could rewrite the code that confines it:
 * the runtime package this process loads, and any of `more` (e.g. the compiled sandbox worker).
 *
 * @throws SandboxConfigError (`sandbox_config_invalid`) naming the path and the `allowWrite` entry.
 */
export function checkRuntimeNotWritable(
  policy: ResolvedSandboxPolicy,
  more: readonly { readonly what: string; readonly path: string }[] = [],
  caller = "the sandbox policy",
): void {
  const guarded = [{ what: "the sandbox runtime package", path: sandboxRuntimePackagePath() }, ...more];
  for (const entry of policy.filesystem.allowWrite) {
    const root = realOrResolved(literalPrefix(entry));
    for (const { what, path } of guarded) {
      const real = realOrResolved(path);
      if (real === root || real.startsWith(root.endsWith(sep) ? root : `${root}${sep}`)) {
        throw new SandboxConfigError(
          `${caller}: filesystem.allowWrite ${JSON.stringify(entry)} contains ${what} (${real}); a sandboxed command could rewrite it. Install it outside every writable path.`,
        );
      }
    }
  }
}

/** The part of a path before its first glob character, up to a directory. */
function literalPrefix(path: string): string {
  const glob = path.search(/[*?[{]/);
  return glob === -1 ? path : dirname(`${path.slice(0, glob)}x`);
}

function realOrResolved(path: string): string {
  try {
    return existsSync(path) ? realpathSync(path) : resolve(path);
  } catch {
    return resolve(path);
  }
}
