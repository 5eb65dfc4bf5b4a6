import { findProgramConfig, type RefusedGitConfig, sandboxedGitCommandLine } from "@castellan/node-runner";
import type { CheckoutGit, CheckoutGitCallOptions } from "./checkout-git.js";

/** The most nested repositories named; the scan looks 8 levels deep. */
const maxNestedRepositories = 50;

// One sandboxed script lists, for the checkout and each repository nested in it, what git
// itself reads as config (includes followed, `commondir` honoured), then which of the git files
// that point elsewhere exist. Its output is the sandbox's: parsed as data, never trusted.
const listing = sandboxedGitCommandLine(["config", "--list", "--show-scope", "--show-origin", "--includes", "-z"]);
const script = [
  "scan() {",
  "  printf '\\036%s\\036' \"$1\"",
  `  (cd "$1" && ${listing}) 2>/dev/null`,
  "  printf '\\037'",
  '  [ -f "$1/.git" ] && printf "gitdir\\000%s/.git\\000" "$1"',
  '  [ -f "$1/.git/commondir" ] && printf "commondir\\000%s/.git/commondir\\000" "$1"',
  '  [ -f "$1/.git/objects/info/alternates" ] && printf "alternates\\000%s/.git/objects/info/alternates\\000" "$1"',
  '  [ -f "$1/.git/objects/info/http-alternates" ] && printf "alternates\\000%s/.git/objects/info/http-alternates\\000" "$1"',
  "  return 0",
  "}",
  "scan .",
  `find . -mindepth 2 -maxdepth 8 -name .git -not -path './.git/*' 2>/dev/null | head -n ${maxNestedRepositories} | while IFS= read -r g; do scan "\${g%/.git}"; done`,
  "exit 0",
].join("\n");

/**
 * Names every config key of the checkout and of its nested repositories that would run a
 * program, read more config or redirect a transport (`programConfigPatterns`), with where git
 * read it, and every `gitdir`, `commondir` or alternates file: what the server refused to
 * interpret outside the sandbox. Values are never taken (they may hold a credential).
 */
export async function scanProgramConfig(
  git: CheckoutGit,
  call: CheckoutGitCallOptions = {},
): Promise<RefusedGitConfig[]> {
  const output = await git.script(script, call);
  const found: RefusedGitConfig[] = [];
  const parts = output.split("\u001e");
  for (let at = 1; at + 1 < parts.length; at += 2) {
    const repository = normalise(parts[at] ?? ".");
    const body = parts[at + 1] ?? "";
    const split = body.lastIndexOf("\u001f");
    const config = split === -1 ? body : body.slice(0, split);
    const files = split === -1 ? "" : body.slice(split + 1);
    found.push(...findProgramConfig(config, repository));
    const fields = files.split("\u0000");
    for (let index = 0; index + 1 < fields.length; index += 2) {
      found.push({ key: fields[index] as string, origin: normalise(fields[index + 1] as string), repository });
    }
  }
  return found;
}

function normalise(path: string): string {
  const trimmed = path.replace(/^\.\//, "");
  return trimmed === "" ? "." : trimmed;
}

/** `refused` without the entries already in `known` (by key, origin and repository). */
export function mergeRefused(known: readonly RefusedGitConfig[], refused: readonly RefusedGitConfig[]) {
  const ids = new Set(known.map((entry) => `${entry.repository}\u0000${entry.key}\u0000${entry.origin}`));
  const merged = [...known];
  for (const entry of refused) {
    const id = `${entry.repository}\u0000${entry.key}\u0000${entry.origin}`;
    if (ids.has(id)) continue;
    ids.add(id);
    merged.push(entry);
  }
  return merged;
}
