// The error codes are a closed set: the exported list, the codes the source throws, and the
// table in docs/errors.md are the same. A code is lower-case words and digits joined by "_"
// (e.g. `instructions_file_invalid_utf8`).
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { castellanErrorCodes } from "../src/index.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const listFile = join(root, "packages/harness/src/error-codes.ts");

/** The non-test TypeScript sources of every package. */
async function sources(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const pkg of await readdir(join(root, "packages"))) {
    const directory = join(root, "packages", pkg, "src");
    const entries = await readdir(directory, { recursive: true }).catch(() => [] as string[]);
    for (const entry of entries) {
      if (!entry.endsWith(".ts") || entry.endsWith(".test.ts")) continue;
      const path = join(directory, entry);
      files.set(relative(root, path), await readFile(path, "utf8"));
    }
  }
  return files;
}

/** Every code the source passes where an error is made: to `super`, an error constructor, a factory, or a code union. */
function thrownCodes(text: string): string[] {
  const codes: string[] = [];
  const patterns = [
    /\bsuper\(\s*"([a-z]+(?:_[a-z0-9]+)+)"/g,
    // A ToolInputError's code is the tool's own, for the model (docs/workspace-tools.md), not a Castellan
    // code; so are a BrowserToolError's (a ToolInputError of the browser tools).
    /\bnew (?!ToolInputError\b|BrowserToolError\b)[A-Z]\w*Error\(\s*"([a-z]+(?:_[a-z0-9]+)*)"/g,
    /\bCastellanError\(\s*"([a-z]+(?:_[a-z0-9]+)*)"/g,
    /\bcode: ("[a-z0-9_]+"(?:\s*\|\s*"[a-z0-9_]+")+)/g,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      const found = match[1] as string;
      for (const literal of found.matchAll(/"([a-z0-9_]+)"/g)) codes.push(literal[1] as string);
      if (!found.startsWith('"')) codes.push(found);
    }
  }
  return codes;
}

describe("the error codes", () => {
  it("list no code twice", () => {
    expect(new Set(castellanErrorCodes).size).toBe(castellanErrorCodes.length);
  });

  it("include every code the source throws", async () => {
    const known = new Set<string>(castellanErrorCodes);
    const unknown: string[] = [];
    let seen = 0;
    for (const [path, text] of await sources()) {
      if (path === relative(root, listFile)) continue;
      for (const code of thrownCodes(text)) {
        seen++;
        if (!known.has(code)) unknown.push(`${code} (${path})`);
      }
    }
    expect(seen).toBeGreaterThan(40);
    expect(unknown).toEqual([]);
  });

  it("are each thrown somewhere: the list holds no code nothing can raise", async () => {
    const all = [...(await sources())].filter(([path]) => path !== relative(root, listFile)).map(([, text]) => text);
    const unused = castellanErrorCodes.filter((code) => !all.some((text) => text.includes(`"${code}"`)));
    expect(unused).toEqual([]);
  });

  it("are exactly the codes docs/errors.md explains", async () => {
    const page = await readFile(join(root, "docs/errors.md"), "utf8");
    const documented = [...page.matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((match) => match[1]);
    expect([...documented].sort()).toEqual([...castellanErrorCodes].sort());
  });
});
