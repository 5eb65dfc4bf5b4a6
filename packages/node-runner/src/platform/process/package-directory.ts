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
