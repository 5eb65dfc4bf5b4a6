import { readdir, readFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));

async function builtFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const files = await Promise.all(
    entries.map((entry) => {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) return builtFiles(path);
      return entry.name.endsWith(".js") ? [path] : [];
    }),
  );
  return files.flat();
}

// The declaration package must load in any JavaScript runtime: no Node built-in may be imported.
describe("the built harness package", () => {
  it("imports no Node built-in module", async () => {
    const files = await builtFiles(dist);
    // The bundle (scripts/bundle.ts): an entry per export and the chunks they share.
    expect(files.length).toBeGreaterThanOrEqual(2);
    const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
    const offenders: string[] = [];
    for (const file of files) {
      const source = await readFile(file, "utf8");
      for (const match of source.matchAll(/(?:from\s*|import\s*\(\s*|require\s*\(\s*|import\s+)["']([^"']+)["']/g)) {
        const specifier = match[1] as string;
        if (builtins.has(specifier) || specifier.startsWith("node:")) offenders.push(`${file}: ${specifier}`);
      }
      if (/\bprocess\.(env|argv|cwd)\b/.test(source)) offenders.push(`${file}: uses process`);
    }
    expect(offenders).toEqual([]);
  });

  it("imports nothing but its own modules", async () => {
    const files = await builtFiles(dist);
    const external: string[] = [];
    for (const file of files) {
      const source = await readFile(file, "utf8");
      for (const match of source.matchAll(/(?:from\s*|import\s*\(\s*|import\s+)["']([^"']+)["']/g)) {
        const specifier = match[1] as string;
        if (!specifier.startsWith(".")) external.push(`${file}: ${specifier}`);
      }
    }
    expect(external).toEqual([]);
  });
});
