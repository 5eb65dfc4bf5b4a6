// The published manifests: every dependency is a caret range of the version the root lockfile
// resolved (the exact exceptions are named and explained in the package's README), and every entry
// of `files` is in the tarball npm packs.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Lockfile } from "../consumer-lockfile.ts";
import { npm } from "../offline-install.ts";
import { exec, packageNames, workspaceRoot } from "../pack.ts";

/** Dependencies pinned to an exact version on purpose; each package README that uses one says why. */
const exactExceptions = ["@anthropic-ai/sandbox-runtime", "playwright-core"];

interface Manifest {
  readonly name: string;
  readonly files: readonly string[];
  readonly dependencies?: Readonly<Record<string, string>>;
}

const manifest = async (name: string): Promise<Manifest> =>
  JSON.parse(await readFile(join(workspaceRoot, "packages", name, "package.json"), "utf8")) as Manifest;
const readme = (name: string) => readFile(join(workspaceRoot, "packages", name, "README.md"), "utf8");

/** The version the root lockfile installed for `dependency` of the workspace package at `packages/<name>`. */
function lockedVersion(lockfile: Lockfile, name: string, dependency: string): string | undefined {
  const entry =
    lockfile.packages[`packages/${name}/node_modules/${dependency}`] ?? lockfile.packages[`node_modules/${dependency}`];
  // A workspace package is a link in node_modules; its version is in its own folder's entry.
  return entry?.link ? lockfile.packages[entry.resolved ?? ""]?.version : entry?.version;
}

describe("the published package manifests", () => {
  it.each(packageNames)("%s depends on caret ranges of the locked versions", async (name) => {
    const lockfile = JSON.parse(await readFile(join(workspaceRoot, "package-lock.json"), "utf8")) as Lockfile;
    const { dependencies = {} } = await manifest(name);
    for (const [dependency, range] of Object.entries(dependencies)) {
      const locked = lockedVersion(lockfile, name, dependency);
      expect(locked, `${dependency} in the root lockfile`).toBeDefined();
      if (exactExceptions.includes(dependency)) {
        expect(range, dependency).toBe(locked);
        expect(await readme(name), `packages/${name}/README.md explains ${dependency}`).toContain(dependency);
      } else {
        expect(range, dependency).toBe(`^${locked}`);
      }
    }
  });

  it("names the planned exact pins and the rule in the node-runner README", async () => {
    const text = await readme("node-runner");
    expect(text).toContain("caret range");
    for (const dependency of exactExceptions) expect(text).toContain(`\`${dependency}\``);
  });

  it("packs every entry of files, and no test file", async () => {
    const { stdout } = await exec(
      npm,
      [
        "pack",
        "--dry-run",
        "--json",
        "--silent",
        ...packageNames.flatMap((name) => ["--workspace", `packages/${name}`]),
      ],
      { cwd: workspaceRoot, maxBuffer: 64 * 1024 * 1024 },
    );
    const packs = JSON.parse(stdout) as { name: string; files: { path: string }[] }[];
    for (const name of packageNames) {
      const { name: packageName, files } = await manifest(name);
      const packed = packs.find((pack) => pack.name === packageName)?.files.map((file) => file.path) ?? [];
      expect(packed.length, packageName).toBeGreaterThan(0);
      for (const entry of files.filter((entry) => !entry.startsWith("!"))) {
        const present = packed.some((path) => path === entry || path.startsWith(`${entry}/`));
        expect(present, `${packageName} packs ${entry}`).toBe(true);
      }
      expect(
        packed.filter((path) => path.includes(".test.")),
        packageName,
      ).toEqual([]);
    }
  });
});
