// The command and sandbox modules never block the event loop on a child: the sandbox runtime's
// proxies run in the host's own process (or its worker), so a synchronous spawn of a wrapped
// command would deadlock, and a synchronous spawn anywhere would stall every Session.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const source = fileURLToPath(new URL("../src/", import.meta.url));
const modules = [
  "platform/process",
  "platform/sandbox",
  "platform/sandbox-worker",
  "capabilities/commands/session",
  "capabilities/commands/host",
  "capabilities/workspace/capability",
];

async function sourceFiles(directory: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...(await sourceFiles(path)));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) files.push(path);
  }
  return files;
}

describe("the command and sandbox sources", () => {
  it("hold no spawnSync, execSync or execFileSync", async () => {
    const found: string[] = [];
    let scanned = 0;
    for (const module of modules) {
      for (const file of await sourceFiles(join(source, module))) {
        scanned++;
        const text = await readFile(file, "utf8");
        for (const name of ["spawnSync", "execSync", "execFileSync"]) {
          if (text.includes(name)) found.push(`${file.slice(source.length)}: ${name}`);
        }
      }
    }
    expect(scanned).toBeGreaterThan(20);
    expect(found).toEqual([]);
  });
});
