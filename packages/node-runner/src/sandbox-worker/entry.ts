import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageName = "@castellan/node-runner";

/** The directory of this package: the nearest `package.json` above this module naming it. */
export function packageDirectory(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(directory, "package.json");
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === packageName) return directory;
      } catch {}
    }
    const parent = dirname(directory);
    if (parent === directory) throw new Error(`The ${packageName} package directory was not found above this module.`);
    directory = parent;
  }
}

/**
 * The fixed compiled entry of the sandbox worker, `dist/sandbox-worker/worker.js` of this
 * package: the same file whether the host runs the compiled package or its TypeScript source,
 * so a worker never needs a TypeScript loader.
 */
export function sandboxWorkerEntry(): string {
  return join(packageDirectory(), "dist", "sandbox-worker", "worker.js");
}
