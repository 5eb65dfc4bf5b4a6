// Every source map a package publishes resolves: each `sources` entry of each `.js.map` and
// `.d.ts.map` in the tarball names a file the same tarball holds (the packages ship `src/`
// beside `dist/` for this), so a debugger or "go to definition" in a consumer lands on code.
// The one exception is a dependency compiled into a chunk (scripts/bundle.ts): its sources are
// named `bundled:<package>/<path>`, their text is in the map, and the map's `ignoreList` holds them.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { repositoryRoot } from "./check-layers.ts";

const run = promisify(execFile);
const publishable = ["harness", "models", "node-runner", "executor", "connectors", "cli"];

/** The paths `npm pack` would put in the package's tarball (scripts not run: the build is current). */
async function tarballFiles(directory: string): Promise<string[]> {
  const npm = process.env.npm_execpath;
  const [command, args] = npm ? [process.execPath, [npm]] : ["npm", []];
  const { stdout } = await run(command, [...args, "pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: directory,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [report] = JSON.parse(stdout) as { files: { path: string }[] }[];
  return (report?.files ?? []).map((file) => file.path);
}

describe("the published source maps", () => {
  for (const name of publishable) {
    it(`of @castellan/${name} point only at files in its tarball`, async () => {
      const directory = join(repositoryRoot, "packages", name);
      const files = await tarballFiles(directory);
      const shipped = new Set(files);
      const maps = files.filter((path) => path.endsWith(".js.map") || path.endsWith(".d.ts.map"));
      expect(maps.length, "the tarball ships source maps").toBeGreaterThan(0);
      const missing: string[] = [];
      for (const map of maps) {
        const { sources, sourceRoot, sourcesContent, ignoreList } = JSON.parse(
          await readFile(join(directory, map), "utf8"),
        ) as {
          sources: string[];
          sourceRoot?: string;
          sourcesContent?: (string | null)[];
          ignoreList?: number[];
        };
        for (const [index, source] of sources.entries()) {
          if (source.startsWith("bundled:")) {
            const embedded = typeof sourcesContent?.[index] === "string";
            if (!embedded || !ignoreList?.includes(index))
              missing.push(`${map} → ${source} (not embedded and ignored)`);
            continue;
          }
          const target = posix.normalize(posix.join(dirname(map), sourceRoot ?? "", source));
          if (!shipped.has(target)) missing.push(`${map} → ${target}`);
        }
      }
      expect(missing).toEqual([]);
      expect(files.some((path) => path.includes(".test."))).toBe(false);
    }, 120_000);
  }
});
