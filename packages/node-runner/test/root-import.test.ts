// Importing the package root (and opening a plain agent's Session) loads no third-party module:
// the MCP SDK (with zod and ajv), yaml, picomatch and ignore load when a capability first uses
// them. A child Node process records every module it loads, so the list is the real one.
import { execFile } from "node:child_process";
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
});
