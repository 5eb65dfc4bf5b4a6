// Shared by the examples' packed tests: pack the packages with `npm pack`, install only those tarballs
// into a project outside the workspace, at the versions the workspace lockfile resolved and from npm's
// cache alone, and copy the example's files into it.
import { execFile } from "node:child_process";
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { consumerLockfile, type LocalTarball, type Lockfile } from "./consumer-lockfile.ts";
import { installOffline, npm } from "./offline-install.ts";
import { describeTarball } from "./tarball.ts";

export const exec = promisify(execFile);
export const workspaceRoot = fileURLToPath(new URL("../../", import.meta.url));
export const packageNames = ["harness", "models", "node-runner"] as const;

/** The folder name under `packages/` of a published package. */
export type PackageName = (typeof packageNames)[number];

/** Which packages a packed consumer installs. */
export interface PackedConsumerOptions {
  /** The workspace packages packed and installed; default all of {@link packageNames}. */
  readonly packages?: readonly PackageName[];
  /**
   * Package tarballs (absolute paths) the consumer depends on itself, installed at the top level of its
   * node_modules beside the packed packages, which then use them; default none.
   */
  readonly ownTarballs?: readonly string[];
  /**
   * Registry packages the consumer depends on itself, name to pinned version, installed at the
   * version the workspace lockfile resolved (e.g. an example's MCP server); default none.
   */
  readonly dependencies?: Readonly<Record<string, string>>;
  /** Directories (absolute paths) copied into the consumer whole, keeping their names; default none. */
  readonly directories?: readonly string[];
  /**
   * The packages' tarballs already packed (absolute paths, e.g. what `npm run pack` wrote),
   * used instead of packing them here; default: `npm pack` runs for {@link packages}.
   */
  readonly packed?: readonly string[];
}

/** What the compiler read for a consumer's typecheck that found no error. */
export interface TypecheckReport {
  /** The consumer's own files it checked, by name, sorted. */
  readonly entries: string[];
  /** The `@castellan/*` packages whose type declarations it read from the consumer's node_modules, sorted. */
  readonly packages: string[];
  /** Files it read from the workspace's own packages; none when it checks against the tarballs. */
  readonly workspaceFiles: string[];
}

/** A consumer project outside the workspace with the packed packages installed. */
export interface PackedConsumer {
  /** The consumer project's directory. */
  readonly directory: string;
  /**
   * Typechecks the consumer's `*.ts` files against the packed type declarations; rejects with
   * the compiler's diagnostics if there are any, else resolves to what the compiler read.
   */
  typecheck(): Promise<TypecheckReport>;
  /** Removes everything this consumer created. */
  remove(): Promise<void>;
}

/**
 * Packs the packages (their `prepack` builds them), writes a lockfile for a new temporary project from
 * the workspace's, installs it offline, and copies `files` (absolute paths) into it, keeping their names.
 */
export async function createPackedConsumer(
  files: readonly string[],
  options: PackedConsumerOptions = {},
): Promise<PackedConsumer> {
  const names = options.packages ?? packageNames;
  const work = await mkdtemp(join(tmpdir(), "castellan-consumer-"));
  const remove = () => rm(work, { recursive: true, force: true });
  try {
    const tarballs = join(work, "tarballs");
    const directory = join(work, "consumer");
    await mkdir(tarballs);
    await mkdir(directory);
    if (options.packed) {
      for (const tarball of options.packed) await copyFile(tarball, join(tarballs, basename(tarball)));
    } else {
      await exec(
        npm,
        [
          "pack",
          "--silent",
          ...names.flatMap((name) => ["--workspace", `packages/${name}`]),
          "--pack-destination",
          tarballs,
        ],
        { cwd: workspaceRoot },
      );
    }
    const packed = await readdir(tarballs);
    const installed: LocalTarball[] = [];
    for (const name of names) {
      const file = packed.find((entry) => entry.startsWith(`castellan-${name}-`) && entry.endsWith(".tgz"));
      if (!file) throw new Error(`npm pack produced no tarball for ${name}: ${packed.join(", ")}`);
      installed.push(await describeTarball(join(tarballs, file), `../tarballs/${file}`, `packages/${name}`));
    }
    for (const tarball of options.ownTarballs ?? []) {
      const file = basename(tarball);
      await copyFile(tarball, join(tarballs, file));
      installed.push(await describeTarball(join(tarballs, file), `../tarballs/${file}`));
    }
    const manifest = {
      name: "consumer",
      private: true,
      type: "module",
      dependencies: {
        ...Object.fromEntries(installed.map((tarball) => [tarball.name, `file:${tarball.path}`])),
        ...options.dependencies,
      },
      devDependencies: { "@types/node": "24.19.4" },
    };
    const workspace = JSON.parse(await readFile(join(workspaceRoot, "package-lock.json"), "utf8")) as Lockfile;
    const lockfile = consumerLockfile({ ...manifest, tarballs: installed, workspace });
    await writeFile(join(directory, "package.json"), JSON.stringify(manifest, null, 2));
    await writeFile(join(directory, "package-lock.json"), JSON.stringify(lockfile, null, 2));
    await writeFile(
      join(directory, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2023",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
          // Node runs the examples' .ts files as they are, so their local imports name .ts files.
          allowImportingTsExtensions: true,
          skipLibCheck: false,
          types: ["node"],
        },
        include: ["*.ts"],
      }),
    );
    for (const file of files) await copyFile(file, join(directory, basename(file)));
    for (const folder of options.directories ?? []) {
      await cp(folder, join(directory, basename(folder)), { recursive: true });
    }
    await installOffline(directory, lockfile);
    return {
      directory,
      async typecheck() {
        const tsc = join(workspaceRoot, "node_modules", "typescript", "bin", "tsc");
        const { stdout } = await exec(process.execPath, [tsc, "-p", "tsconfig.json", "--listFiles"], {
          cwd: directory,
        });
        return typecheckReport(stdout, directory);
      },
      remove,
    };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** Groups the files `tsc --listFiles` printed into the consumer's, the packed packages' and the workspace's. */
function typecheckReport(listed: string, directory: string): TypecheckReport {
  const files = listed
    .split("\n")
    .filter((line) => line.length > 0)
    .map((file) => resolve(file));
  const installed = join(directory, "node_modules", "@castellan");
  const packages = new Set<string>();
  for (const file of files) {
    if (file.startsWith(installed + sep) && file.endsWith(".d.ts"))
      packages.add(relative(installed, file).split(sep)[0] ?? "");
  }
  return {
    entries: files
      .filter((file) => dirname(file) === directory)
      .map((file) => basename(file))
      .sort(),
    packages: [...packages].sort(),
    workspaceFiles: files.filter((file) => file.startsWith(join(workspaceRoot, "packages") + sep)),
  };
}
