// What a consumer's lockfile needs to know about a package tarball: the package.json packed in it and
// the tarball's integrity, both read from the file itself.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import type { DependencyMap, LocalTarball } from "./consumer-lockfile.ts";

const exec = promisify(execFile);

/** The fields of a packed package.json that a consumer's lockfile uses. */
export interface PackedManifest {
  readonly name: string;
  readonly version: string;
  readonly dependencies?: DependencyMap;
  readonly peerDependencies?: DependencyMap;
}

/** Reads the package.json packed in the tarball `file` (npm packs it as `package/package.json`). */
export async function readPackedManifest(file: string): Promise<PackedManifest> {
  const { stdout } = await exec("tar", ["-xzOf", file, "package/package.json"], { maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout) as PackedManifest;
}

/** `sha512-<base64>` of the file's bytes, the form npm writes in a lockfile's `integrity`. */
export async function integrityOf(file: string): Promise<string> {
  return `sha512-${createHash("sha512")
    .update(await readFile(file))
    .digest("base64")}`;
}

/**
 * Describes the tarball `file` for a consumer's lockfile. `path` is how the consumer reaches the file
 * (e.g. `../tarballs/castellan-models-0.1.0.tgz`); `workspacePath`, where the workspace lockfile keeps
 * the package, if it is one of the workspace's.
 */
export async function describeTarball(file: string, path: string, workspacePath?: string): Promise<LocalTarball> {
  const manifest = await readPackedManifest(file);
  return {
    name: manifest.name,
    version: manifest.version,
    path,
    integrity: await integrityOf(file),
    ...(manifest.dependencies && Object.keys(manifest.dependencies).length > 0
      ? { dependencies: manifest.dependencies }
      : {}),
    ...(manifest.peerDependencies ? { peerDependencies: manifest.peerDependencies } : {}),
    ...(workspacePath !== undefined ? { workspacePath } : {}),
  };
}
