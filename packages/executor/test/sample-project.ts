// The sample repository of the coding job's end-to-end tests: a small Node project whose
// `node --test` suite has one failing test (add() subtracts), in a local bare repository, and
// the scripted steps by which an agent fixes it through the workspace tools and commits.
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ScriptedStepSource } from "@castellan/models/testing";
import { git } from "./support.ts";

/** The buggy module. */
export const buggyMath = "export function add(a, b) {\n  return a - b;\n}\n";
/** The module fixed. */
export const fixedMath = "export function add(a, b) {\n  return a + b;\n}\n";

/** A new bare repository whose `main` holds the sample project; returns its path. */
export async function sampleRepository(base: string, files: Readonly<Record<string, string>> = {}): Promise<string> {
  const directory = await mkdtemp(join(base, "sample-"));
  const bare = join(directory, "origin.git");
  const seed = join(directory, "seed");
  await git(["init", "--bare", bare], directory);
  await git(["init", seed], directory);
  const all: Record<string, string> = {
    "package.json": `${JSON.stringify({ name: "sample", private: true, type: "module", scripts: { test: "node --test" } }, null, 2)}\n`,
    "math.js": buggyMath,
    "math.test.js":
      'import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { add } from "./math.js";\n\ntest("adds", () => {\n  assert.equal(add(2, 3), 5);\n});\n',
    ".gitignore": "node_modules/\n",
    ...files,
  };
  for (const [path, content] of Object.entries(all)) {
    await mkdir(join(seed, path, ".."), { recursive: true });
    await writeFile(join(seed, path), content);
  }
  await git(["add", "-A"], seed);
  await git(["commit", "-m", "the sample project"], seed);
  await git(["push", bare, "main"], seed);
  return bare;
}

/** One model turn: a patch replacing `math.js` with `content`. */
export function patchMath(from: string, to: string): ScriptedStepSource {
  const minus = from
    .trimEnd()
    .split("\n")
    .map((line) => `-${line}`);
  const plus = to
    .trimEnd()
    .split("\n")
    .map((line) => `+${line}`);
  return {
    toolCalls: [
      {
        name: "apply_workspace_patch",
        input: {
          patch: `*** Begin Patch\n*** Update File: math.js\n@@\n${[...minus, ...plus].join("\n")}\n*** End Patch`,
        },
      },
    ],
  };
}

/** One model turn: a command in the sandbox. */
export function command(text: string): ScriptedStepSource {
  return { toolCalls: [{ name: "exec_command", input: { command: text } }] };
}

/** The agent's turns that fix the bug and commit it, then its answer. */
export function fixAndCommit(answer = "Fixed add()."): ScriptedStepSource[] {
  return [patchMath(buggyMath, fixedMath), command("git commit -qam 'Fix add'"), { text: answer }];
}
