// Internal to platform/paths: refusing writes to the entries the OS sandbox denies to commands.

import { quote, refusal } from "../../kernel/workspace-path/refusal.js";
import { errorCode } from "./io-error.js";
import { isSettingEntry, lexicalProtectedRule, type ProtectedRule } from "./protected-entries.js";
import { absolutePath, segmentsInside, type WorkspaceRoot } from "./root.js";

/**
 * The rule `segments` breaks: by name (see `lexicalProtectedRule`), or a setting at the root of
 * a nested repository: a directory on the way that holds a `.git` entry now. Only existing
 * directories are asked, one `lstat` each; a missing one holds no repository.
 */
export async function protectedRuleOf(
  root: WorkspaceRoot,
  segments: readonly string[],
): Promise<ProtectedRule | undefined> {
  const byName = lexicalProtectedRule(segments);
  if (byName) return byName;
  for (let count = 1; count < segments.length; count++) {
    if (!isSettingEntry(segments[count] as string)) continue;
    if (await holdsGitEntry(root, segments.slice(0, count))) {
      return { kind: "setting", entry: segments.slice(0, count + 1).join("/") };
    }
  }
  return undefined;
}

/**
 * The rule the path breaks where it really leads: its longest existing prefix with every link
 * resolved, then the rest. A link (`docs -> .git`) is refused elsewhere too, but naming the
 * protected entry it reaches tells the model why. Outside the root, or unresolvable: undefined
 * (the walk refuses those with their own codes).
 */
export async function resolvedProtectedRule(
  root: WorkspaceRoot,
  segments: readonly string[],
): Promise<ProtectedRule | undefined> {
  for (let count = segments.length; count > 0; count--) {
    const given = absolutePath(root, segments.slice(0, count));
    let real: string;
    try {
      real = await root.operations.realpath(given);
    } catch (error) {
      if (errorCode(error) === "ENOENT") continue;
      return undefined;
    }
    if (real === given) return undefined;
    const inside = segmentsInside(root, real);
    if (inside === undefined) return undefined;
    return protectedRuleOf(root, [...inside, ...segments.slice(count)]);
  }
  return undefined;
}

/** The `path_protected` refusal, naming the rule. */
export function protectedRefusal(path: string, rule: ProtectedRule, through?: string): Error {
  const way = through === undefined ? "" : ` (${through})`;
  const reason = {
    git: `${quote(rule.entry)} is git's own data, which neither file tools nor sandboxed commands may change (the rule ".git internals")`,
    "castellan-state": `${quote(rule.entry)} is Castellan's own state (the rule "castellan state")`,
    setting: `${quote(rule.entry)} holds shell or tool settings that can run code (the rule "settings")`,
    "hard-link": `it is a file with more than one name (a hard link), whose other names cannot be checked (the rule "hard links")`,
  }[rule.kind];
  return refusal(
    "path_protected",
    `${quote(path)}${way} is protected: ${reason}. Nothing was written. Change a different file, or ask the person running the agent.`,
  );
}

async function holdsGitEntry(root: WorkspaceRoot, directory: readonly string[]): Promise<boolean> {
  try {
    await root.operations.lstat(absolutePath(root, [...directory, ".git"]));
    return true;
  } catch {
    return false;
  }
}
