// Importing the package root (and opening a plain agent's Session) loads no third-party module:
// the MCP SDK (with zod and ajv), yaml, picomatch and ignore load when a capability first uses
// them. A child Node process records every module it loads, so the list is the real one. The
// built package is bundled (scripts/bundle.ts): the root and the subpaths share chunks, so a
// name both export is one value, and the ajv compiled into a chunk ships with its licence.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = pathToFileURL(fileURLToPath(new URL("../dist/index.js", import.meta.url))).href;
const offline = import.meta.resolve("@castellan/models/offline");

/** The third-party packages (by name) and the node-runner modules a child loads for `body`. */
async function loaded(body: string): Promise<{ packages: string[]; modules: number }> {
  const script = `
    import { registerHooks } from "node:module";
    const seen = new Set();
    registerHooks({ load(url, context, next) { seen.add(url); return next(url, context); } });
    ${body}
    const packages = new Set();
    let modules = 0;
    for (const url of seen) {
      const match = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(url);
      if (match) packages.add(match[1]);
      if (url.includes("/packages/node-runner/")) modules++;
    }
    process.stdout.write(JSON.stringify({ packages: [...packages].sort(), modules }));`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { timeout: 60_000 });
  return JSON.parse(stdout) as { packages: string[]; modules: number };
}

describe("importing @castellan/node-runner", () => {
  it("loads no third-party module, and a plain agent's Session needs none either", async () => {
    const imported = await loaded(`await import(${JSON.stringify(root)});`);
    expect(imported.packages).toEqual([]);
    expect(imported.modules).toBeGreaterThan(0);
    const opened = await loaded(`
      const { openSession } = await import(${JSON.stringify(root)});
      const { defineAgent } = await import("@castellan/harness");
      const { offline } = await import(${JSON.stringify(offline)});
      const session = await openSession({ agent: defineAgent("plain", { model: offline() }) });
      await session.run("hello").result;
      await session.close();`);
    expect(opened.packages).toEqual([]);
  });

  it("loads the MCP SDK only when a server connects", async () => {
    const imported = await loaded(
      `await import(${JSON.stringify(import.meta.resolve("../dist/capabilities/mcp/index.js"))});`,
    );
    expect(imported.packages).not.toContain("@modelcontextprotocol/sdk");
    expect(imported.packages).not.toContain("zod");
  });

  it("shares one value for a name the root and a subpath both export", async () => {
    const rootExports = (await import(root)) as Record<string, unknown>;
    const subpaths = ["workspace", "commands", "mcp", "skills", "children", "goals", "tasks", "browser"];
    let shared = 0;
    for (const subpath of subpaths) {
      const exports = (await import(import.meta.resolve(`@castellan/node-runner/${subpath}`))) as Record<
        string,
        unknown
      >;
      for (const [name, value] of Object.entries(exports)) {
        if (!(name in rootExports)) continue;
        expect(rootExports[name], `${name} from /${subpath}`).toBe(value);
        shared++;
      }
    }
    expect(shared).toBeGreaterThan(50);
  });

  it("ships the licence of the ajv its chunks hold, and does not depend on ajv", async () => {
    const notices = await readFile(fileURLToPath(new URL("../dist/THIRD-PARTY-NOTICES.md", import.meta.url)), "utf8");
    expect(notices).toMatch(/^## ajv \d+\.\d+\.\d+ \(MIT\)$/m);
    expect(notices).toContain("Evgeny Poberezkin");
    const manifest = JSON.parse(await readFile(fileURLToPath(new URL("../package.json", import.meta.url)), "utf8"));
    expect(Object.keys(manifest.dependencies)).not.toContain("ajv");
  });

  it("opens a Session with tools without loading ajv from node_modules", async () => {
    const opened = await loaded(`
      const { openSession } = await import(${JSON.stringify(root)});
      const { defineAgent, defineTool } = await import("@castellan/harness");
      const { offline } = await import(${JSON.stringify(offline)});
      const look = defineTool({ name: "look", description: "Look", readOnly: true,
        inputSchema: { type: "object", properties: { q: { type: "string" } } }, execute: () => "seen" });
      const session = await openSession({ agent: defineAgent("tools", { model: offline(), tools: [look] }) });
      await session.close();`);
    expect(opened.packages).toEqual([]);
  });
});
