import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

let found: { readonly path: string | undefined } | undefined;

/**
 * The `rg` executable on `PATH` (an absolute path), or undefined when there is none; looked
 * up once per process. Not a workspace file-system call: it reads no file of the root.
 */
export function findRipgrep(): string | undefined {
  found ??= { path: lookUp() };
  return found.path;
}

function lookUp(): string | undefined {
  for (const directory of (process.env.PATH ?? "").split(delimiter)) {
    if (!isAbsolute(directory)) continue;
    const candidate = join(directory, "rg");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}
