// The server's salvage after a pass, on a real git checkout: tracked changes first, in a commit
// of their own; then the new files, without build and dependency output, with credential-named
// files withheld and named; all or nothing within 200 files and 10 MiB; ignored files untouched;
// every message says it is the server's salvage.
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  createRedactor,
  type GitContext,
  isCredentialName,
  isDeniedPath,
  prepareHooksPath,
  salvage,
} from "../src/index.js";
import { hostCheckoutGit } from "./checkout-git-support.ts";
import { git, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-salvage-");

async function checkout(): Promise<{ directory: string; context: GitContext }> {
  const directory = join(temp.path, "checkout");
  await mkdir(directory);
  await git(["init", "-q"], directory);
  await git(["config", "user.name", "Castellan"], directory);
  await git(["config", "user.email", "castellan@localhost"], directory);
  await writeFile(join(directory, "README.md"), "# app\n");
  await writeFile(join(directory, "old.txt"), "old\n");
  await writeFile(join(directory, ".gitignore"), "ignored/\n");
  await git(["add", "-A"], directory);
  await git(["commit", "-q", "-m", "first"], directory);
  const hooksPath = join(temp.path, "hooks");
  await prepareHooksPath(hooksPath);
  return {
    directory,
    context: {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: temp.path },
      hooksPath,
      redactor: createRedactor(),
      signal: new AbortController().signal,
    },
  };
}

async function write(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

describe("salvage", () => {
  it("names credentials and build output by their paths and names", () => {
    for (const name of [
      ".env",
      ".env.local",
      "server.pem",
      "tls.key",
      "id_rsa",
      "id_ed25519.pub",
      ".npmrc",
      ".netrc",
      ".pypirc",
    ])
      expect(isCredentialName(name), name).toBe(true);
    for (const name of [".env.example", ".env.sample", "environment.ts", "keys.md", "README.md"])
      expect(isCredentialName(name), name).toBe(false);
    for (const path of [
      "node_modules/x/index.js",
      "packages/a/dist/a.js",
      "target/debug/app",
      "a/__pycache__/m.pyc",
      "x.pyc",
      "npm-debug.log",
    ])
      expect(isDeniedPath(path), path).toBe(true);
    for (const path of ["src/dist.ts", "build.sh", "docs/out.md", "src/logger.ts"])
      expect(isDeniedPath(path), path).toBe(false);
  });

  it("commits tracked changes, then the new files, leaving output out and withholding credentials", async () => {
    const { directory, context } = await checkout();
    await write(directory, {
      "README.md": "# app, changed\n",
      "src/a.ts": "export const a = 1;\n",
      ".env.example": "KEY=\n",
      "node_modules/x/index.js": "x\n",
      "build/out.js": "out\n",
      "app.log": "log\n",
      ".env": "KEY=secret\n",
      "keys/id_rsa": "private\n",
      "config/.npmrc": "//registry/:_authToken=x\n",
      "ignored/cache.bin": "ignored\n",
    });
    await git(["rm", "-q", "old.txt"], directory);
    await git(["reset", "-q"], directory);
    const outcome = await salvage(hostCheckoutGit(directory, context), "job-1, initial");
    expect(outcome).toEqual({
      committed: ["README.md", "old.txt", ".env.example", "src/a.ts"],
      denied: ["app.log", "build/out.js", "node_modules/x/index.js"],
      withheldCredentials: [".env", "config/.npmrc", "keys/id_rsa"],
    });
    const subjects = await git(["log", "--format=%s", "-2"], directory);
    expect(subjects).toBe(
      "castellan salvage: 2 new files the agent left uncommitted (job-1, initial)\ncastellan salvage: tracked changes the agent left uncommitted (job-1, initial)\n",
    );
    expect(await git(["log", "--format=%b", "-1"], directory)).toContain("not by the agent");
    const tree = await git(["ls-tree", "-r", "--name-only", "HEAD"], directory);
    expect(tree.split("\n").filter(Boolean).sort()).toEqual([".env.example", ".gitignore", "README.md", "src/a.ts"]);
  });

  it("commits none of the new files over 200 of them or over 10 MiB, and says why; tracked changes still go", async () => {
    const { directory, context } = await checkout();
    await write(directory, Object.fromEntries(Array.from({ length: 201 }, (_, index) => [`gen/f${index}.txt`, "x\n"])));
    await write(directory, { "README.md": "# changed\n" });
    const many = await salvage(hostCheckoutGit(directory, context), "job-2, initial");
    expect(many.committed).toEqual(["README.md"]);
    expect(many.refused).toBe("201 new files is over the bound of 200; none was committed");

    await git(["clean", "-fdq"], directory);
    await write(directory, { "big.bin": "b".repeat(10 * 1024 * 1024 + 1) });
    const big = await salvage(hostCheckoutGit(directory, context), "job-2, resume-1");
    expect(big.committed).toEqual([]);
    expect(big.refused).toMatch(/^10485761 bytes of new files is over the bound of 10485760/);
    expect((await git(["status", "--porcelain"], directory)).trim()).toBe("?? big.bin");
  });
});
