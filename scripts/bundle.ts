// Bundles the JavaScript of the packages a program imports first (harness, models,
// node-runner): `tsc -b` writes only their declarations, and Rolldown compiles their sources
// into one file per public entry plus shared chunks. Loading 300 small modules cost a plain
// agent's start about 150 ms of module resolution and linking; a handful of chunks costs a
// tenth of that. Every entry of a package is bundled in one build, so the root and its
// subpaths share chunks and a class has one identity whichever entry a program imported it from.
// Run by `npm run build` after `tsc -b`.
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const root = fileURLToPath(new URL("../", import.meta.url));

/** How one package is bundled, beyond the entries its `exports` and `bin` name. */
interface BundleSettings {
  /** Scripts it spawns by path and internals the repository's own benches measure directly. */
  readonly entries: readonly string[];
  /**
   * Dependencies compiled into its chunks rather than imported from `node_modules`: ajv's 60
   * CommonJS files cost a first Session with tools 25 ms to load, one lazy chunk of them 7 ms.
   * Their licences are copied into `dist/THIRD-PARTY-NOTICES.md`.
   */
  readonly inline: readonly string[];
}

const settings: Readonly<Record<string, BundleSettings>> = {
  harness: { entries: [], inline: [] },
  models: { entries: [], inline: [] },
  "node-runner": {
    entries: [
      "platform/process/broker/broker",
      "platform/sandbox-worker/worker",
      "capabilities/workspace/search/index",
      "platform/paths/root",
    ],
    inline: ["ajv"],
  },
};

/** The packages whose JavaScript is bundled; the others keep `tsc`'s file-per-module output. */
export const bundledPackages = Object.keys(settings);

/** `./dist/a/index.js` → `a/index`, the entry name and the path under `src/` without `.ts`. */
function entryName(target: string): string {
  const match = /^\.\/dist\/(.+)\.js$/.exec(target);
  if (!match?.[1]) throw new Error(`The package entry ${target} is not a ./dist/*.js file.`);
  return match[1];
}

interface PackageManifest {
  readonly exports?: Record<string, { readonly default: string }>;
  readonly bin?: Record<string, string>;
}

/** Every entry of one package, by name: its exports' and bins' targets and its extra entries. */
export async function packageEntries(name: string): Promise<Record<string, string>> {
  const directory = join(root, "packages", name);
  const manifest = JSON.parse(await readFile(join(directory, "package.json"), "utf8")) as PackageManifest;
  const targets = [
    ...Object.values(manifest.exports ?? {}).map((entry) => entry.default),
    ...Object.values(manifest.bin ?? {}),
  ].map(entryName);
  const names = [...new Set([...targets, ...(settings[name]?.entries ?? [])])];
  return Object.fromEntries(names.map((entry) => [entry, join(directory, "src", `${entry}.ts`)]));
}

/** Removes the JavaScript and its maps a previous bundle left in `dist/` (the declarations stay). */
async function removeJavaScript(dist: string): Promise<void> {
  const entries = await readdir(dist, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isFile() && /\.js(\.map)?$/.test(entry.name)) await rm(join(entry.parentPath, entry.name));
  }
}

/** Bundles one package into its `dist/`: entries at their `exports` paths, shared code in `dist/chunks/`. */
export async function bundlePackage(name: string): Promise<void> {
  const directory = join(root, "packages", name);
  const dist = join(directory, "dist");
  const input = await packageEntries(name);
  await removeJavaScript(dist);
  const inline = settings[name]?.inline ?? [];
  const output = await build({
    input,
    cwd: directory,
    platform: "node",
    // Other packages (ours included) and Node's modules stay imports; this package's files, the
    // inlined dependencies and what those import join the chunks.
    external: (id, importer) => {
      if (id.startsWith(".") || id.startsWith("/")) return false;
      if (inline.some((dependency) => id === dependency || id.startsWith(`${dependency}/`))) return false;
      return !importer?.includes("/node_modules/");
    },
    transform: { target: "es2023" },
    logLevel: "warn",
    output: {
      dir: dist,
      format: "esm",
      sourcemap: true,
      entryFileNames: "[name].js",
      chunkFileNames: "chunks/[name]-[hash].js",
      // An inlined dependency's files are not in the tarball: their maps name them `bundled:<package>/<path>`,
      // carry their text, and list them as code a debugger steps over.
      sourcemapPathTransform: (source) => {
        const at = source.lastIndexOf("node_modules/");
        return at === -1 ? source : `bundled:${source.slice(at + "node_modules/".length)}`;
      },
      sourcemapIgnoreList: (source) => source.includes("node_modules/"),
      // The declarations carry the JSDoc; dropping it from the JavaScript halves what Node compiles.
      comments: { legal: true, annotation: true, jsdoc: false },
    },
  });
  const moduleIds = output.output.flatMap((file) => (file.type === "chunk" ? file.moduleIds : []));
  await writeNotices(dist, moduleIds);
}

/** The folder of the `node_modules` package a bundled module came from, or undefined for ours. */
function packageFolderOf(moduleId: string): string | undefined {
  return /^(.*\/node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(moduleId)?.[1];
}

/** Writes the name, version and licence of every third-party package the chunks hold (none: no file). */
async function writeNotices(dist: string, moduleIds: readonly string[]): Promise<void> {
  const folders = [...new Set(moduleIds.map(packageFolderOf).filter((folder) => folder !== undefined))].sort();
  const notices = join(dist, "THIRD-PARTY-NOTICES.md");
  if (folders.length === 0) {
    await rm(notices, { force: true });
    return;
  }
  const sections: string[] = [];
  for (const folder of folders) {
    const manifest = JSON.parse(await readFile(join(folder, "package.json"), "utf8")) as {
      name: string;
      version: string;
      license?: string;
    };
    const names = await readdir(folder);
    const licenceFile = names.find((file) => /^licen[cs]e(\.|$)/i.test(file));
    if (!licenceFile) throw new Error(`${manifest.name} is bundled but ships no licence file.`);
    const text = (await readFile(join(folder, licenceFile), "utf8")).trim();
    sections.push(`## ${manifest.name} ${manifest.version} (${manifest.license ?? "see below"})\n\n${text}\n`);
  }
  const heading =
    "# Third-party code in this package's chunks\n\nCompiled in by scripts/bundle.ts; each is used under its own licence.\n";
  await writeFile(notices, `${heading}\n${sections.join("\n")}`);
}

if (import.meta.main) {
  const names = process.argv.slice(2);
  for (const name of names.length > 0 ? names : bundledPackages) {
    if (!bundledPackages.includes(name)) throw new Error(`@castellan/${name} is not a bundled package.`);
    await bundlePackage(name);
  }
}
