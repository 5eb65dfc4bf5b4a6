import { lstat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import type { CheckoutGit, CheckoutGitCallOptions } from "../git/checkout-git.js";

/** The most new files salvage commits at once; more and it commits none of them. */
export const maxSalvagedFiles = 200;
/** The most bytes of new files salvage commits at once; more and it commits none of them. */
export const maxSalvagedBytes = 10 * 1024 * 1024;

/** Directories whose files are build or dependency output, never salvaged. */
const deniedDirectories = new Set([
  "node_modules",
  "dist",
  "build",
  "out",
  "coverage",
  ".next",
  ".turbo",
  ".cache",
  "target",
  ".venv",
  "venv",
  "__pycache__",
]);

/** What salvage did after a pass. */
export interface SalvageOutcome {
  /** Paths committed by the server: tracked changes the agent left, then its new files. */
  readonly committed: readonly string[];
  /** New files left out as build or dependency output. */
  readonly denied: readonly string[];
  /** New files left out because their names say they hold credentials: someone should decide on rotation. */
  readonly withheldCredentials: readonly string[];
  /** Why the new files were not committed at all (over the file or byte bound). */
  readonly refused?: string;
}

/** True for a name that says it holds a credential (`.env` but not its examples, keys, rc files with tokens). */
export function isCredentialName(name: string): boolean {
  if (name === ".env.example" || name === ".env.sample") return false;
  if (name === ".env" || name.startsWith(".env.")) return true;
  if (name.endsWith(".pem") || name.endsWith(".key")) return true;
  if (name.startsWith("id_rsa") || name.startsWith("id_ed25519")) return true;
  return name === ".npmrc" || name === ".netrc" || name === ".pypirc";
}

/** True for a path under a build or dependency directory, or a compiled or log file. */
export function isDeniedPath(path: string): boolean {
  const segments = path.split("/");
  const name = segments.at(-1) ?? "";
  if (name.endsWith(".pyc") || name.endsWith(".log")) return true;
  return segments.slice(0, -1).some((segment) => deniedDirectories.has(segment));
}

/**
 * The server's salvage after a pass: tracked changes the agent left uncommitted are committed
 * first; then its new, untracked and not ignored files, without build and dependency output, and
 * without credential-named files (withheld and named), all or nothing within 200 files and
 * 10 MiB. Each commit message says it is the server's salvage, not work anyone chose to keep.
 * Every git step runs in the job's sandbox (the checkout's config is the agent's); the paths
 * it lists are data, and one that is absolute or climbs out is left out.
 */
export async function salvage(
  checkout: CheckoutGit,
  label: string,
  call: CheckoutGitCallOptions = {},
): Promise<SalvageOutcome> {
  const committed: string[] = [];
  const git = (args: readonly string[]) => checkout.run(args, call);
  await git(["add", "--update"]);
  const tracked = (await git(["diff", "--cached", "--name-only", "-z"])).split("\0").filter(Boolean);
  if (tracked.length > 0) {
    await git([
      "commit",
      "--no-verify",
      "-m",
      `castellan salvage: tracked changes the agent left uncommitted (${label})`,
      "-m",
      "Committed by the Castellan executor after the agent's pass, not by the agent.",
    ]);
    committed.push(...tracked);
  }
  const untracked = (await git(["ls-files", "--others", "--exclude-standard", "-z"]))
    .split("\0")
    .filter((path) => path !== "" && isInside(path));
  const denied: string[] = [];
  const withheldCredentials: string[] = [];
  const candidates: string[] = [];
  for (const path of untracked) {
    if (isDeniedPath(path)) denied.push(path);
    else if (isCredentialName(path.split("/").at(-1) ?? "")) withheldCredentials.push(path);
    else candidates.push(path);
  }
  let refused: string | undefined;
  if (candidates.length > maxSalvagedFiles) {
    refused = `${candidates.length} new files is over the bound of ${maxSalvagedFiles}; none was committed`;
  } else if (candidates.length > 0) {
    let bytes = 0;
    for (const path of candidates) bytes += (await lstat(join(checkout.root, path)).catch(() => ({ size: 0 }))).size;
    if (bytes > maxSalvagedBytes) {
      refused = `${bytes} bytes of new files is over the bound of ${maxSalvagedBytes}; none was committed`;
    } else {
      await git(["add", "--", ...candidates]);
      await git([
        "commit",
        "--no-verify",
        "-m",
        `castellan salvage: ${candidates.length} new file${candidates.length === 1 ? "" : "s"} the agent left uncommitted (${label})`,
        "-m",
        "Committed by the Castellan executor after the agent's pass, not by the agent.",
      ]);
      committed.push(...candidates);
    }
  }
  return { committed, denied, withheldCredentials, ...(refused ? { refused } : {}) };
}

/** A relative path that stays inside the checkout (what git lists; the sandbox could say otherwise). */
function isInside(path: string): boolean {
  return !isAbsolute(path) && !path.split("/").includes("..");
}

/** The salvage of every pass of a job as one outcome; undefined when no pass ran. */
export function mergeSalvage(outcomes: readonly SalvageOutcome[]): SalvageOutcome | undefined {
  if (outcomes.length === 0) return undefined;
  const unique = (pick: (outcome: SalvageOutcome) => readonly string[]) => [...new Set(outcomes.flatMap(pick))];
  const refused = outcomes.flatMap((outcome) => (outcome.refused ? [outcome.refused] : []));
  return {
    committed: unique((outcome) => outcome.committed),
    denied: unique((outcome) => outcome.denied),
    withheldCredentials: unique((outcome) => outcome.withheldCredentials),
    ...(refused.length > 0 ? { refused: refused.join("; ") } : {}),
  };
}
