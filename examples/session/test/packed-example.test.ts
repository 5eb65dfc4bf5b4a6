// The example as a consumer gets it: the packages are packed with `npm pack`, only those
// tarballs are installed into a project outside the workspace, the example is typechecked
// there, and it runs as two separate OS processes that continue one Session.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPackedConsumer, exec, type PackedConsumer } from "../../test-support/pack.ts";

const example = fileURLToPath(new URL("../chat.ts", import.meta.url));
let packed: PackedConsumer;
let consumer: string;

beforeAll(async () => {
  packed = await createPackedConsumer([example]);
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
    const script = [
      "const h = await import('@castellan/harness');",
      "const ht = await import('@castellan/harness/testing');",
      "const mt = await import('@castellan/models/testing');",
      "const mo = await import('@castellan/models/offline');",
      "const r = await import('@castellan/node-runner');",
      "console.log([typeof h.defineAgent, typeof ht.projectAgent, typeof mt.scriptedModel, typeof mo.offline, typeof r.openSession, typeof r.createFileSessionStore, typeof r.terminalApproval].join(','));",
    ].join("\n");
    const { stdout } = await exec(process.execPath, ["--input-type=module", "-e", script], { cwd: consumer });
    expect(stdout.trim()).toBe(Array(7).fill("function").join(","));
  });

  it("typechecks against the packed type declarations", async () => {
    await packed.typecheck();
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
