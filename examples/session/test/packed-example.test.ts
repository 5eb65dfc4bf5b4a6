import { existsSync } from "node:fs";
// The example as a consumer gets it: the packages are packed with `npm pack`, only those
// tarballs are installed into a project outside the workspace, the example is typechecked
// there, and it runs as two separate OS processes that continue one Session.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPackedConsumer, exec, type PackedConsumer } from "../../test-support/pack.ts";

// Every entry is typechecked as a consumer would compile it; chat.ts is also run below.
const entries = ["chat.ts", "compatible.ts", "openrouter.ts", "anthropic.ts"].map((name) =>
  fileURLToPath(new URL(`../${name}`, import.meta.url)),
);
let packed: PackedConsumer;
let consumer: string;

beforeAll(async () => {
  packed = await createPackedConsumer(entries);
  consumer = packed.directory;
}, 300_000);

afterAll(async () => {
  if (packed) await packed.remove();
});

describe("the packed session example", () => {
  it("installs only the tarballs, outside the workspace", async () => {
    const installed = await readdir(join(consumer, "node_modules", "@castellan"));
    expect(installed.sort()).toEqual(["harness", "models", "node-runner"]);
    const { stdout } = await exec(
      process.execPath,
      ["--input-type=module", "-e", "console.log(import.meta.resolve('@castellan/node-runner'))"],
      { cwd: consumer },
    );
    expect(fileURLToPath(stdout.trim()).startsWith(join(consumer, "node_modules"))).toBe(true);
  });

  it("exposes every published subpath", async () => {
    // Every subpath each packed manifest declares is imported from the installed tarball.
    const script = `
      import { readFile } from "node:fs/promises";
      const found = {};
      for (const name of ["harness", "models", "node-runner"]) {
        const manifest = JSON.parse(await readFile("node_modules/@castellan/" + name + "/package.json", "utf8"));
        for (const subpath of Object.keys(manifest.exports)) {
          const specifier = "@castellan/" + name + subpath.slice(1);
          const module = await import(specifier);
          found[specifier] = Object.values(module).filter((value) => typeof value === "function").length;
        }
      }
      console.log(JSON.stringify(found));`;
    const { stdout } = await exec(process.execPath, ["--input-type=module", "-e", script], { cwd: consumer });
    const found = JSON.parse(stdout.trim()) as Record<string, number>;
    expect(Object.keys(found).sort()).toEqual([
      "@castellan/harness",
      "@castellan/harness/testing",
      "@castellan/models/ai-sdk",
      "@castellan/models/anthropic",
      "@castellan/models/codex",
      "@castellan/models/offline",
      "@castellan/models/openai-compatible",
      "@castellan/models/openrouter",
      "@castellan/models/testing",
      "@castellan/node-runner",
      "@castellan/node-runner/browser",
      "@castellan/node-runner/children",
      "@castellan/node-runner/commands",
      "@castellan/node-runner/goals",
      "@castellan/node-runner/mcp",
      "@castellan/node-runner/sandbox-worker",
      "@castellan/node-runner/skills",
      "@castellan/node-runner/tasks",
      "@castellan/node-runner/workspace",
    ]);
    for (const [specifier, functions] of Object.entries(found)) expect(functions, specifier).toBeGreaterThan(0);
    // The tarball ships the compiled sandbox worker at its fixed entry: no build step for consumers.
    expect(
      existsSync(join(consumer, "node_modules/@castellan/node-runner/dist/platform/sandbox-worker/worker.js")),
    ).toBe(true);
  });

  it("typechecks against the packed type declarations", async () => {
    const read = await packed.typecheck();
    expect(read.entries).toEqual(["anthropic.ts", "chat.ts", "compatible.ts", "openrouter.ts"]);
    expect(read.packages).toEqual(["harness", "models", "node-runner"]);
    expect(read.workspaceFiles).toEqual([]);
  });

  it("continues one Session across two processes", async () => {
    const env = { ...process.env, SESSION_DIRECTORY: join(consumer, "sessions"), SESSION_ID: "packed" };
    const first = await exec(process.execPath, ["chat.ts", "Remember our project is Cedar."], { cwd: consumer, env });
    expect(first.stdout).toContain("1 message(s), 1 from you");
    const second = await exec(process.execPath, ["chat.ts", "What is our project called?"], { cwd: consumer, env });
    expect(second.stdout).toContain("3 message(s), 2 from you");
    expect(second.stdout).toContain("- Remember our project is Cedar.");
    expect(second.stdout).toContain("Latest user message: What is our project called?");
  });
});
