// Attack corpus, file tools against the entries the OS sandbox denies to commands: the scripted
// model calls edit_workspace_file and apply_workspace_patch (Add, Update, Delete, Move at either
// end) on `.git` internals of the root and of a nested repository, Castellan's state, shell and
// tool settings, through a case variant, a symbolic link and a hard link. Each is refused with
// path_protected and leaves the tree unchanged, with sandbox: "none" and (where bwrap is found)
// "os". Each case runs once more with files.allowProtectedWrites (the deliberately unsafe
// configuration) and must then be seen succeeding, so every case is shown able to fail. Then:
// the file tools' protected set equals the sandbox policy's, and list and search never show the
// root's .castellan/ and .castellan-sessions/ (a real agent once found its transcript so).
import { execFile } from "node:child_process";
import { link, mkdir, readFile, realpath, symlink, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { defineAgent, type JsonObject, type RunEvent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { createNodeRunner, type WorkspaceOptions, workspace } from "../src/index.js";
import { protectedRuleOf } from "../src/platform/paths/protected-check.js";
import {
  castellanStateDirectories,
  gitEntryName,
  repositorySettingEntries,
} from "../src/platform/paths/protected-entries.js";
import { bindWorkspaceRoot } from "../src/platform/paths/root.js";
import { resolveSandboxPolicy } from "../src/platform/sandbox/config.js";
import { workspaceSandboxPolicy } from "../src/platform/sandbox/workspace-policy.js";
import {
  addFile,
  cleanupAfterEach,
  deleteFileSection,
  drain,
  patchText,
  tempDirPerTest,
  textOf,
  updateFile,
  writeTree,
} from "./support/index.ts";

const run = promisify(execFile);
const temp = tempDirPerTest("castellan-protected-");
const cleanups = cleanupAfterEach();
const slow = 60_000;

/** The files every case starts from: a repository, a nested one, Castellan state and settings. */
const tree: Record<string, string> = {
  "src/app.ts": "original\n",
  ".castellan/state.json": "original\n",
  ".castellan-sessions/s1/transcript.jsonl": "original\n",
  ".bashrc": "original\n",
  ".mcp.json": "original\n",
  ".claude/settings.json": "original\n",
  "vendor/lib/.bashrc": "original\n",
  "vendor/lib/src/x.ts": "original\n",
};

/** Makes the case's tree: two real repositories (root and vendor/lib) with their `.git/config`. */
async function makeTree(): Promise<string> {
  const root = await realpath(temp.path);
  await run("git", ["init", "-q", root]);
  await run("git", ["init", "-q", join(root, "vendor", "lib")]);
  await writeTree(root, tree);
  return root;
}

interface ProtectedCase {
  readonly name: string;
  readonly tool: "edit_workspace_file" | "apply_workspace_patch";
  readonly input: JsonObject;
  /** Extra setup (a link) in the root. */
  readonly setup?: (root: string) => Promise<unknown>;
  /** The file the attack writes (relative to the root): unchanged when refused, changed when not. */
  readonly target: string;
  /**
   * The link rule that refuses the case anyway once protection is lifted: links are never
   * written through. Such a case shows it can fail by that code replacing `path_protected`.
   */
  readonly linkRefusal?: "path_through_symlink" | "path_is_symlink";
}

const edit = (path: string): JsonObject => ({ path, expected: "original", replacement: "planted" });
const patchOf = (...sections: string[]): JsonObject => ({ patch: patchText(...sections) });
const move = (from: string, to: string) => `*** Update File: ${from}\n*** Move to: ${to}\n@@\n-original\n+planted\n`;

const cases: readonly ProtectedCase[] = [
  {
    name: "edit .git/config",
    tool: "edit_workspace_file",
    setup: (root) => writeFile(join(root, ".git/config"), "original\n"),
    input: edit(".git/config"),
    target: ".git/config",
  },
  {
    name: "edit .git/description (not hooks or config: all of .git)",
    tool: "edit_workspace_file",
    setup: (root) => writeFile(join(root, ".git/description"), "original\n"),
    input: edit(".git/description"),
    target: ".git/description",
  },
  {
    name: "add .git/info/attributes",
    tool: "apply_workspace_patch",
    input: patchOf(addFile(".git/info/attributes", "planted")),
    target: ".git/info/attributes",
  },
  {
    name: "add .git/objects/info/alternates",
    tool: "apply_workspace_patch",
    input: patchOf(addFile(".git/objects/info/alternates", "planted")),
    target: ".git/objects/info/alternates",
  },
  {
    name: "add .git/commondir",
    tool: "apply_workspace_patch",
    input: patchOf(addFile(".git/commondir", "planted")),
    target: ".git/commondir",
  },
  {
    name: "add a gitdir: file making a new repository",
    tool: "apply_workspace_patch",
    input: patchOf(addFile("src/.git", "planted")),
    target: "src/.git",
  },
  {
    name: "edit a nested repository's .git/config",
    tool: "edit_workspace_file",
    setup: (root) => writeFile(join(root, "vendor/lib/.git/config"), "original\n"),
    input: edit("vendor/lib/.git/config"),
    target: "vendor/lib/.git/config",
  },
  {
    name: "update a nested repository's .bashrc",
    tool: "apply_workspace_patch",
    input: patchOf(updateFile("vendor/lib/.bashrc", "original", "planted")),
    target: "vendor/lib/.bashrc",
  },
  {
    name: "edit .castellan/state.json",
    tool: "edit_workspace_file",
    input: edit(".castellan/state.json"),
    target: ".castellan/state.json",
  },
  {
    name: "delete a transcript in .castellan-sessions/",
    tool: "apply_workspace_patch",
    input: patchOf(deleteFileSection(".castellan-sessions/s1/transcript.jsonl")),
    target: ".castellan-sessions/s1/transcript.jsonl",
  },
  { name: "edit .bashrc", tool: "edit_workspace_file", input: edit(".bashrc"), target: ".bashrc" },
  {
    name: "add .profile",
    tool: "apply_workspace_patch",
    input: patchOf(addFile(".profile", "planted")),
    target: ".profile",
  },
  { name: "edit .mcp.json", tool: "edit_workspace_file", input: edit(".mcp.json"), target: ".mcp.json" },
  {
    name: "update .claude/settings.json",
    tool: "apply_workspace_patch",
    input: patchOf(updateFile(".claude/settings.json", "original", "planted")),
    target: ".claude/settings.json",
  },
  {
    name: "move a source file onto .bashrc (the Move's destination)",
    tool: "apply_workspace_patch",
    input: patchOf(move("src/app.ts", ".bashrc")),
    target: ".bashrc",
  },
  {
    name: "move .mcp.json away (the Move's source)",
    tool: "apply_workspace_patch",
    input: patchOf(move(".mcp.json", "src/mcp.json")),
    target: ".mcp.json",
  },
  {
    name: "a case variant: add .GIT/hooks/pre-commit",
    tool: "apply_workspace_patch",
    setup: (root) => mkdir(join(root, ".GIT/hooks"), { recursive: true }),
    input: patchOf(addFile(".GIT/hooks/pre-commit", "planted")),
    target: ".GIT/hooks/pre-commit",
  },
  {
    name: "a case variant: add .BashRC",
    tool: "apply_workspace_patch",
    input: patchOf(addFile(".BashRC", "planted")),
    target: ".BashRC",
  },
  {
    name: "a symbolic link to .git, written through: link/config",
    tool: "apply_workspace_patch",
    setup: (root) => symlink(".git", join(root, "docs")),
    input: patchOf(addFile("docs/info/exclude", "planted")),
    target: ".git/info/exclude",
    linkRefusal: "path_through_symlink",
  },
  {
    name: "a symbolic link to .bashrc, edited",
    tool: "edit_workspace_file",
    setup: (root) => symlink(".bashrc", join(root, "rc.txt")),
    input: edit("rc.txt"),
    target: ".bashrc",
    linkRefusal: "path_is_symlink",
  },
  {
    name: "a hard link to .git/config, edited",
    tool: "edit_workspace_file",
    setup: async (root) => {
      await writeFile(join(root, ".git/config"), "original\n");
      await link(join(root, ".git/config"), join(root, "config.txt"));
    },
    input: edit("config.txt"),
    target: "config.txt",
  },
];

/** The result text of each tool call the scripted model made, in order. */
function resultTexts(events: readonly RunEvent[]): { isError: boolean; text: string }[] {
  return events.flatMap((event) =>
    event.kind === "tool-end" ? [{ isError: event.result.isError === true, text: textOf(event.result) }] : [],
  );
}

/** Runs `calls` through the model of an agent with one workspace on `root`. */
async function runCalls(
  root: string,
  calls: readonly { name: string; input: JsonObject }[],
  options: Partial<WorkspaceOptions> = {},
) {
  const capability = workspace({ root: `${root}`, ...options });
  const model = scriptedModel([...calls.map((call) => ({ toolCalls: [call] })), { text: "done" }]);
  const runner = await createNodeRunner({
    agent: defineAgent("test.protected-attacks", { model, capabilities: [capability] }),
    permissions: "full-access",
  });
  cleanups.push(() => runner.close());
  const session = cleanups.closeLater(await runner.createSession());
  const { events, error } = await drain(session.run("change the workspace"));
  expect(error).toBeUndefined();
  return resultTexts(events);
}

const contentOf = (root: string, path: string) => readFile(join(root, path), "utf8").catch(() => undefined);

async function attack(
  root: string,
  entry: ProtectedCase,
  options: Partial<WorkspaceOptions>,
): Promise<{ isError: boolean; text: string; before: string | undefined; after: string | undefined }> {
  await entry.setup?.(root);
  const before = await contentOf(root, entry.target);
  const [result] = await runCalls(root, [{ name: entry.tool, input: entry.input }], options);
  if (!result) throw new Error("the call did not end");
  return { ...result, before, after: await contentOf(root, entry.target) };
}

describe("file tools refuse what the sandbox denies to commands (sandbox: none)", () => {
  for (const entry of cases) {
    it(`${entry.name}: path_protected, nothing written`, async () => {
      const root = await makeTree();
      const outcome = await attack(root, entry, { sandbox: "none" });
      expect(outcome.isError, outcome.text).toBe(true);
      expect(outcome.text).toMatch(/^path_protected: .*the rule "/);
      expect(outcome.after).toBe(outcome.before);
    });

    const lands = entry.linkRefusal === undefined ? "the write lands" : `only ${entry.linkRefusal} is left`;
    it(`${entry.name}: is able to fail — with files.allowProtectedWrites ${lands}`, async () => {
      const root = await makeTree();
      const outcome = await attack(root, entry, { sandbox: "none", files: { allowProtectedWrites: true } });
      if (entry.linkRefusal === undefined) {
        expect(outcome.isError, outcome.text).toBe(false);
        expect(outcome.after).not.toBe(outcome.before);
      } else {
        expect(outcome.text.startsWith(`${entry.linkRefusal}:`), outcome.text).toBe(true);
      }
    });
  }

  it("names the rule: .git internals, castellan state, settings, hard links", async () => {
    const root = await makeTree();
    await writeFile(join(root, "a.txt"), "original\n");
    await link(join(root, "a.txt"), join(root, "b.txt"));
    const texts = await runCalls(
      root,
      [".git/config", ".castellan/state.json", ".bashrc", "a.txt"].map((path) => ({
        name: "edit_workspace_file",
        input: edit(path),
      })),
      { sandbox: "none" },
    );
    expect(texts.map(({ text }) => text.match(/the rule "([^"]+)"/)?.[1])).toEqual([
      ".git internals",
      "castellan state",
      "settings",
      "hard links",
    ]);
  });

  it("refuses allowProtectedWrites on an OS workspace: its file tools always keep the sandbox's rules", async () => {
    const root = await realpath(temp.path);
    expect(() => workspace({ root, files: { allowProtectedWrites: true } })).toThrow(
      expect.objectContaining({ code: "workspace_options_invalid" }),
    );
  });
});

describeNeeding(osSandboxPrograms, "file tools in an OS workspace refuse the same entries", () => {
  it(
    "refuses every case with path_protected",
    async () => {
      const root = await makeTree();
      for (const entry of cases) await entry.setup?.(root);
      const before = await Promise.all(cases.map((entry) => contentOf(root, entry.target)));
      const results = await runCalls(
        root,
        cases.map((entry) => ({ name: entry.tool, input: entry.input })),
      );
      expect(results.map(({ text }) => text.split(":")[0])).toEqual(cases.map(() => "path_protected"));
      expect(await Promise.all(cases.map((entry) => contentOf(root, entry.target)))).toEqual(before);
    },
    slow,
  );
});

describe("one list drives both", () => {
  it("the file tools refuse every path the sandbox policy denies, and protect the same names", async () => {
    const root = await makeTree();
    const bound = await bindWorkspaceRoot(pathToFileURL(`${root}/`));
    const declared = resolveSandboxPolicy({ network: { allowedDomains: [], deniedDomains: [] } });
    const policy = await workspaceSandboxPolicy(bound, declared, { home: join(root, "..", "home") });
    const denied = policy.filesystem.denyWrite.map((path) => relative(root, path));
    for (const path of denied) {
      expect(await protectedRuleOf(bound, path.split("/")), path).toBeDefined();
    }
    // Beside .git (whole for the file tools, hooks and config for commands so that git works),
    // the two sets are the same.
    const outsideGit = (path: string) => !path.split("/").includes(gitEntryName);
    const fileToolSet = [
      ...castellanStateDirectories,
      ...["", "vendor/lib/"].flatMap((repository) => repositorySettingEntries.map((name) => `${repository}${name}`)),
    ];
    expect(denied.filter(outsideGit).sort()).toEqual(fileToolSet.sort());
    expect(denied.filter((path) => !outsideGit(path)).sort()).toEqual(
      [".git/config", ".git/hooks", "vendor/lib/.git/config", "vendor/lib/.git/hooks"].sort(),
    );
  });
});

describe("list_workspace and search_workspace skip Castellan's own state", () => {
  const marker = "TRANSCRIPT-MARKER-1f3a";

  async function plant(): Promise<string> {
    const root = await realpath(temp.path);
    await writeTree(root, {
      ".castellan-sessions/s1/transcript.jsonl": `{"text":"${marker}"}\n`,
      ".castellan/state.json": `{"note":"${marker}"}\n`,
      ".Castellan-Sessions/old.jsonl": `${marker}\n`,
      "src/app.ts": "const app = 1;\n",
    });
    return root;
  }

  const calls: { name: string; input: JsonObject }[] = [
    { name: "search_workspace", input: { query: marker } },
    { name: "list_workspace", input: { path: ".", recursive: true } },
    { name: "list_workspace", input: { path: "." } },
  ];

  it("finds no transcript through search, and lists neither directory, flat or recursive", async () => {
    const root = await plant();
    const [search, recursive, flat] = await runCalls(root, calls, { sandbox: "none" });
    expect(search?.text).not.toContain(marker);
    expect(JSON.parse(search?.text ?? "{}").hits).toEqual([]);
    for (const listing of [recursive, flat]) {
      const paths = (JSON.parse(listing?.text ?? "{}").entries as { path: string }[]).map((entry) => entry.path);
      expect(paths.some((path) => /castellan/i.test(path))).toBe(false);
      expect(paths).toContain("src");
    }
  });

  it("is able to fail: the same marker in an ordinary directory is found and listed", async () => {
    const root = await plant();
    await writeTree(root, { "sessions-copy/transcript.jsonl": `${marker}\n` });
    const [search, recursive] = await runCalls(root, calls, { sandbox: "none" });
    expect(JSON.parse(search?.text ?? "{}").hits).toMatchObject([{ path: "sessions-copy/transcript.jsonl" }]);
    expect(recursive?.text).toContain("sessions-copy/transcript.jsonl");
  });
});
