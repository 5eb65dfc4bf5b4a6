// The two searchers a literal query runs through: Castellan's engine, paged to the end
// through nextOffset, and Debian's ripgrep with the flags that give the same file set.
import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import {
  type SearchEngine,
  searchWorkspace,
} from "../../../packages/node-runner/dist/capabilities/workspace/search/index.js";
import { bindWorkspaceRoot } from "../../../packages/node-runner/dist/platform/paths/root.js";

/** What one searcher found for one query: `path:line` of every hit, and how long it took. */
export interface Found {
  readonly locations: ReadonlySet<string>;
  readonly ms: number;
  /** Pages the engine returned (1 for rg). */
  readonly pages: number;
}

/** Runs `query` through the engine over `directory`, every page, at the default limits. */
export async function searchWithEngine(
  directory: string,
  query: string,
  engine: SearchEngine = "builtin",
): Promise<Found> {
  const started = performance.now();
  const root = await bindWorkspaceRoot(pathToFileURL(`${directory}/`));
  const locations = new Set<string>();
  let offset: string | undefined;
  let pages = 0;
  do {
    const page = await searchWorkspace(root, { query, offset }, { engine });
    for (const hit of page.hits) locations.add(`${hit.path}:${hit.line}`);
    if (page.timedOut) throw new Error(`the engine timed out searching for ${JSON.stringify(query)}`);
    offset = page.nextOffset;
    pages++;
  } while (offset !== undefined);
  return { locations, ms: performance.now() - started, pages };
}

/** The flags the bench compares against (as the issue gives them). */
export const ripgrepFlags = ["--fixed-strings", "--hidden", "--no-require-git", "--glob", "!.git", "--line-number"];

/**
 * Runs `rg` over `directory` (as its working directory) and collects `path:line` from its
 * output, read as bytes with `--null` after each path so no path is misread.
 */
export function searchWithRipgrep(directory: string, query: string, executable = "rg"): Promise<Found> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(executable, [...ripgrepFlags, "--null", "--no-heading", "--color", "never", "--", query, "."], {
      cwd: directory,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const locations = new Set<string>();
    let rest = Buffer.alloc(0);
    let errors = "";
    child.stdout.on("data", (data: Buffer) => {
      let buffer = rest.length > 0 ? Buffer.concat([rest, data]) : data;
      let end = buffer.indexOf(0x0a);
      let from = 0;
      while (end >= 0) {
        const nul = buffer.indexOf(0, from);
        const colon = buffer.indexOf(0x3a, nul + 1);
        const path = buffer.toString("utf8", from, nul).replace(/^\.\//, "");
        locations.add(`${path}:${buffer.toString("latin1", nul + 1, colon)}`);
        from = end + 1;
        end = buffer.indexOf(0x0a, from);
      }
      buffer = buffer.subarray(from);
      rest = Buffer.from(buffer);
    });
    child.stderr.on("data", (data: Buffer) => {
      errors += data.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      // 1: nothing found.
      if (code !== 0 && code !== 1) reject(new Error(`rg exited with ${code}: ${errors.slice(0, 500)}`));
      else resolve({ locations, ms: performance.now() - started, pages: 1 });
    });
  });
}

/** The `rg` on PATH and its version line, or undefined when there is none. */
export function findRipgrep(executable = "rg"): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(executable, ["--version"], { stdio: ["ignore", "pipe", "ignore"] });
    let output = "";
    child.stdout.on("data", (data: Buffer) => {
      output += data.toString();
    });
    child.on("error", () => resolve(undefined));
    child.on("close", (code) => resolve(code === 0 ? output.split("\n")[0] : undefined));
  });
}
