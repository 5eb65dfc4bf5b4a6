// Two OS-sandboxed Sessions on one root at once (the executor's agent and its own git do this).
// Each Session's sandbox runtime makes an empty mount point on the host for a protected entry
// that does not exist, and removes it when none of its own commands runs. Shown with real
// bubblewrap: the second Session, started while the first's mount point was there, bound it;
// once the first removes it, the second's running command creates `.castellan/` and writes in
// it, a deny lost. With the entries made first by `createProtectedPlaceholders`, neither
// runtime makes or removes them, and the write is refused. Plus the helper's own rules.
import { existsSync } from "node:fs";
import { lstat, mkdir, readdir, realpath, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { defineAgent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { createNodeRunner, createProtectedPlaceholders, runSessionCommand, workspace } from "../src/index.js";
import { cleanupAfterEach, tempDirPerTest } from "./support/index.ts";

const temp = tempDirPerTest("castellan-shared-root-");
const cleanups = cleanupAfterEach();

async function sandboxedSession(root: string) {
  const agent = defineAgent("test.shared-root", {
    model: scriptedModel([]),
    capabilities: [workspace({ root: pathToFileURL(`${root}/`), sandbox: "os", homeReads: "none" })],
  });
  const runner = await createNodeRunner({ agent, permissions: "full-access" });
  cleanups.push(() => runner.close());
  return cleanups.closeLater(await runner.createSession());
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Session A's command holds a mount point for the absent `.castellan/` while Session B's
 * command starts; A's command ends (its runtime then removes what it made); B's command,
 * released by a file, tries to create and write `.castellan/evil`. Resolves with B's output.
 */
async function overlap(root: string): Promise<{ readonly output: string; readonly written: boolean }> {
  const first = await sandboxedSession(root);
  const second = await sandboxedSession(root);
  const held = runSessionCommand(first, {
    command: "touch first-started; while [ ! -e release-first ]; do sleep 0.02; done",
    timeoutMs: 60_000,
  });
  // Its bubblewrap has mounted over the absent `.castellan/` by the time the command runs.
  await waitFor("the first sandbox's command", () => existsSync(join(root, "first-started")));
  const writer = runSessionCommand(second, {
    command: [
      "touch started",
      "while [ ! -e release-second ]; do sleep 0.02; done",
      "mkdir -p .castellan 2>&1; echo planted > .castellan/evil 2>&1 && echo wrote || echo refused",
    ].join("\n"),
    timeoutMs: 60_000,
  });
  await waitFor("the second sandbox's start", () => existsSync(join(root, "started")));
  await writeFile(join(root, "release-first"), "");
  expect((await held).exitCode).toBe(0);
  await writeFile(join(root, "release-second"), "");
  const result = await writer;
  return { output: result.stdout, written: existsSync(join(root, ".castellan", "evil")) };
}

describeNeeding(osSandboxPrograms, "two sandboxed Sessions on one root", () => {
  it("without placeholders, the first runtime's cleanup takes the second's deny with it", async () => {
    const root = await realpath(temp.path);
    const { output, written } = await overlap(root);
    expect(output.trim().split("\n").at(-1)).toBe("wrote");
    expect(written).toBe(true);
  }, 120_000);

  it("with the entries made first, neither runtime removes them and the write is refused", async () => {
    const root = await realpath(temp.path);
    const made = await createProtectedPlaceholders(root);
    expect(made).toContain(join(root, ".castellan"));
    const { output, written } = await overlap(root);
    expect(output.trim().split("\n").at(-1)).toBe("refused");
    expect(written).toBe(false);
    expect(await readdir(join(root, ".castellan"))).toEqual([]);
  }, 120_000);
});

describe("createProtectedPlaceholders", () => {
  it("makes what is absent (files empty, directories empty, .git/hooks) at the root and in nested repositories", async () => {
    const root = await realpath(temp.path);
    await mkdir(join(root, ".git"));
    await mkdir(join(root, "lib", "nested", ".git"), { recursive: true });
    const made = await createProtectedPlaceholders(root);
    for (const path of [".castellan", ".castellan-sessions", ".vscode", ".idea", ".claude", ".git/hooks"]) {
      expect((await lstat(join(root, path))).isDirectory(), path).toBe(true);
    }
    for (const path of [".bashrc", ".gitconfig", ".mcp.json", "lib/nested/.zshrc"]) {
      const stats = await lstat(join(root, path));
      expect(stats.isFile() && stats.size === 0, path).toBe(true);
    }
    expect(made).toContain(join(root, "lib", "nested", ".git", "hooks"));
    expect(made).not.toContain(join(root, "lib", "nested", ".castellan"));
    // A second call makes nothing.
    expect(await createProtectedPlaceholders(root)).toEqual([]);
  });

  it("leaves what exists as it is, a symlink never followed, and a .git file without hooks", async () => {
    const root = await realpath(temp.path);
    const outside = join(root, "outside");
    await mkdir(outside);
    await writeFile(join(root, ".bashrc"), "echo mine\n");
    await symlink(join(outside, "target"), join(root, ".gitconfig"));
    await symlink(outside, join(root, ".vscode"));
    await writeFile(join(root, ".git"), "gitdir: elsewhere\n");
    const made = await createProtectedPlaceholders(root);
    expect(made).not.toContain(join(root, ".bashrc"));
    expect(made).not.toContain(join(root, ".gitconfig"));
    expect(made).not.toContain(join(root, ".vscode"));
    expect(made.some((path) => path.includes(".git/"))).toBe(false);
    expect(await readdir(outside)).toEqual([]);
    expect((await lstat(join(root, ".git"))).isFile()).toBe(true);
  });
});
