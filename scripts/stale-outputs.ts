// Removes compiled outputs whose source is gone (a file moved or deleted): `tsc -b` never does,
// so without this a build keeps them and `npm pack` ships them. Run by `npm run build` first.
import { readdir, rm, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { bundledPackages } from "./bundle.ts";

const root = fileURLToPath(new URL("../", import.meta.url));

/** The publishable packages, in dependency order. */
export const publishablePackages = ["harness", "models", "node-runner", "connectors", "executor", "cli"] as const;

/**
 * The source a compiled output comes from: `dist/a/b.js` (`.d.ts`, and their maps) from
 * `src/a/b.ts`. A bundled package's JavaScript is scripts/bundle.ts's, which replaces all of it.
 */
function sourceOf(output: string, bundled: boolean): string | undefined {
  const match = (bundled ? /^(.*?)(\.d\.ts\.map|\.d\.ts)$/ : /^(.*?)(\.d\.ts\.map|\.d\.ts|\.js\.map|\.js)$/).exec(
    output,
  );
  return match ? `${match[1]}.ts` : undefined;
}

async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** Removes the outputs in `packages/<name>/dist` whose source file is gone; answers them, relative to the root. */
export async function removeStaleOutputs(name: string): Promise<string[]> {
  const packageDir = join(root, "packages", name);
  const removed: string[] = [];
  for (const file of await filesUnder(join(packageDir, "dist"))) {
    const source = sourceOf(relative(join(packageDir, "dist"), file), bundledPackages.includes(name));
    if (source === undefined) continue;
    const exists = await stat(join(packageDir, "src", source)).then(
      () => true,
      () => false,
    );
    if (!exists) {
      await rm(file);
      removed.push(relative(root, file));
    }
  }
  return removed;
}

if (import.meta.main) {
  for (const name of publishablePackages) {
    for (const file of await removeStaleOutputs(name)) process.stdout.write(`removed stale ${file}\n`);
  }
}
