// The offline install names what npm's cache lacks. npm is pointed at a new empty cache, so the outcome
// depends on nothing this machine has cached; --offline keeps npm off the network.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Lockfile } from "../consumer-lockfile.ts";
import { installOffline, missingFromCache } from "../offline-install.ts";

let work: string | undefined;

afterEach(async () => {
  if (work) await rm(work, { recursive: true, force: true });
  work = undefined;
});

/** A lockfile locking `castellan-absent-package@1.0.0`, whose tarball no cache holds. */
function absentPackageLockfile(): Lockfile {
  const integrity = `sha512-${Buffer.alloc(64, 7).toString("base64")}`;
  return {
    name: "consumer",
    lockfileVersion: 3,
    requires: true,
    packages: {
      "": { name: "consumer", dependencies: { "castellan-absent-package": "1.0.0" } },
      "node_modules/castellan-absent-package": {
        version: "1.0.0",
        resolved: "https://registry.npmjs.org/castellan-absent-package/-/castellan-absent-package-1.0.0.tgz",
        integrity,
      },
    },
  };
}

describe("installOffline", () => {
  it("names the package and version the cache has no tarball for", async () => {
    work = await mkdtemp(join(tmpdir(), "castellan-offline-install-"));
    const cache = join(work, "cache");
    const project = join(work, "consumer");
    await mkdir(project);
    const lockfile = absentPackageLockfile();
    await writeFile(join(project, "package.json"), JSON.stringify(lockfile.packages[""]));
    await writeFile(join(project, "package-lock.json"), JSON.stringify(lockfile));
    await expect(installOffline(project, lockfile, { ...process.env, npm_config_cache: cache })).rejects.toThrow(
      `npm's cache (${cache}) has no tarball for castellan-absent-package@1.0.0: `,
    );
  });
});

describe("missingFromCache", () => {
  it("finds a tarball by its integrity under the cache's content folder, and skips file tarballs", async () => {
    work = await mkdtemp(join(tmpdir(), "castellan-offline-install-"));
    const lockfile = absentPackageLockfile();
    const withFile: Lockfile = {
      ...lockfile,
      packages: {
        ...lockfile.packages,
        "node_modules/local": { version: "2.0.0", resolved: "file:../local-2.0.0.tgz", integrity: "sha512-AAAA" },
      },
    };
    expect(await missingFromCache(withFile, work)).toEqual(["castellan-absent-package@1.0.0"]);
    const hex = Buffer.alloc(64, 7).toString("hex");
    const folder = join(work, "_cacache", "content-v2", "sha512", hex.slice(0, 2), hex.slice(2, 4));
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, hex.slice(4)), "the tarball's bytes");
    expect(await missingFromCache(withFile, work)).toEqual([]);
  });
});
