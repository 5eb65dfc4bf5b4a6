// `npm run pack [folder]`: builds the packages and writes every publishable package's tarball
// into one folder (default `packed/`), for installing Castellan into a project outside this
// repository before it is on a registry. Outputs left in dist/ by a source file that no longer
// exists are removed first, so a tarball never ships code the sources do not hold.
import { execFile } from "node:child_process";
import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../", import.meta.url));

/** The publishable packages, in dependency order. */
export const publishablePackages = ["harness", "models", "node-runner", "connectors", "executor"] as const;

/** The source a compiled output comes from: `dist/a/b.js` (`.d.ts`, and their maps) from `src/a/b.ts`. */
function sourceOf(output: string): string | undefined {
  const match = /^(.*?)(\.d\.ts\.map|\.d\.ts|\.js\.map|\.js)$/.exec(output);
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
    const source = sourceOf(relative(join(packageDir, "dist"), file));
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

/**
 * Builds the workspace and packs each publishable package into `destination` (created if
 * missing). Answers the tarballs' absolute paths, in package order.
 */
export async function packPackages(destination: string): Promise<string[]> {
  const folder = resolve(destination);
  await mkdir(folder, { recursive: true });
  for (const name of publishablePackages) await removeStaleOutputs(name);
  const npm = process.env.npm_execpath;
  const [command, prefix] = npm ? [process.execPath, [npm]] : ["npm", []];
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  await run(process.execPath, [tsc, "-b"], { cwd: root });
  // The build just ran; each package's own prepack would only repeat it.
  const { stdout } = await run(
    command,
    [
      ...prefix,
      "pack",
      "--json",
      "--ignore-scripts",
      ...publishablePackages.flatMap((name) => ["--workspace", `packages/${name}`]),
      "--pack-destination",
      folder,
    ],
    { cwd: root, maxBuffer: 64 * 1024 * 1024 },
  );
  const packed = JSON.parse(stdout) as { name: string; filename: string }[];
  return publishablePackages.map((name) => {
    const entry = packed.find((candidate) => candidate.name === `@castellan/${name}`);
    if (!entry) throw new Error(`npm pack wrote no tarball for @castellan/${name}.`);
    return join(folder, entry.filename);
  });
}

if (import.meta.main) {
  const destination = process.argv[2] ?? join(root, "packed");
  const tarballs = await packPackages(destination);
  for (const tarball of tarballs) process.stdout.write(`${relative(process.cwd(), tarball)}\n`);
}
