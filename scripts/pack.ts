// `npm run pack [folder]`: builds the packages and writes every publishable package's tarball
// into one folder (default `packed/`), for installing Castellan into a project outside this
// repository before it is on a registry. Outputs left in dist/ by a source file that no longer
// exists are removed first (stale-outputs.ts), so a tarball never ships code the sources do not hold.
import { execFile } from "node:child_process";
import { mkdir, readFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { publishablePackages, removeStaleOutputs } from "./stale-outputs.ts";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../", import.meta.url));

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
  await run(process.execPath, [join(root, "scripts", "bundle.ts")], { cwd: root });
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
  return Promise.all(
    publishablePackages.map(async (folderName) => {
      // Each package's own name: `@castellan/<folder>`, or `castellan` for the command line.
      const manifest = JSON.parse(await readFile(join(root, "packages", folderName, "package.json"), "utf8"));
      const entry = packed.find((candidate) => candidate.name === manifest.name);
      if (!entry) throw new Error(`npm pack wrote no tarball for ${manifest.name}.`);
      return join(folder, entry.filename);
    }),
  );
}

if (import.meta.main) {
  const destination = process.argv[2] ?? join(root, "packed");
  const tarballs = await packPackages(destination);
  for (const tarball of tarballs) process.stdout.write(`${relative(process.cwd(), tarball)}\n`);
}
