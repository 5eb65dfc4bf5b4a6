import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { defineAgent, defineCapability, defineTool, type ModelRequest } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import {
  createWorkspaceEnvironmentPlugin,
  probeWorkspaceEnvironment,
  type WorkspaceEnvironment,
} from "../src/capabilities/workspace/environment/index.js";
import { createNodeRunner } from "../src/index.js";
import { cleanupAfterEach, drain, tempDirPerTest } from "./support/index.ts";

// Real git repositories in temporary directories. The set-up commands below never read the
// user's or the system's config (GIT_CONFIG_GLOBAL, GIT_CONFIG_NOSYSTEM) and never run a hook
// or filter the tests plant; the probe, by design, runs with the Runner's own HOME.

const temp = tempDirPerTest("castellan-environment-");
const cleanups = cleanupAfterEach();

const setupEnvironment: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  LC_ALL: "C",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.invalid",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.invalid",
  GIT_TERMINAL_PROMPT: "0",
};

const setupSafety = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "protocol.file.allow=always",
];

/** Runs a set-up git command in `cwd` (no hook, fsmonitor or planted filter runs) and returns its output. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", [...setupSafety, ...args], {
    cwd,
    env: setupEnvironment,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Runs `git status --porcelain` as a careless caller would: no safety options at all. */
function naiveStatus(cwd: string): void {
  spawnSync("git", ["status", "--porcelain"], { cwd, env: setupEnvironment, stdio: ["ignore", "pipe", "pipe"] });
}

/** The real path of a fresh directory `name` under the test's temporary directory. */
function directory(name: string): string {
  const path = join(temp.path, name);
  mkdirSync(path, { recursive: true });
  return realpathSync(path);
}

/** A repository `name` with `files` committed on `main` (none: an unborn `main`). */
function repository(name: string, files: Record<string, string> = {}): string {
  const path = directory(name);
  git(path, "init", "-q", "-b", "main");
  for (const [file, text] of Object.entries(files)) write(path, file, text);
  if (Object.keys(files).length > 0) {
    git(path, "add", "-A");
    git(path, "commit", "-q", "-m", "initial");
  }
  return path;
}

function write(root: string, file: string, text: string): void {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
}

function probe(path: string, options: { git?: string; timeoutMs?: number } = {}): Promise<WorkspaceEnvironment> {
  return probeWorkspaceEnvironment({ workingDirectory: pathToFileURL(path), ...options });
}

function headOf(path: string): string {
  return git(path, "rev-parse", "HEAD").trim();
}

/** An executable shell script at `path`. */
function script(path: string, body: string): string {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe("probeWorkspaceEnvironment on real repositories", () => {
  it("a clean repository on a branch: root, main worktree, branch, HEAD, not dirty (probed from a subdirectory)", async () => {
    const root = repository("clean", { "README.md": "hello\n", "src/index.ts": "export {};\n" });
    const environment = await probe(join(root, "src"));
    expect(environment).toEqual({
      workingDirectory: join(root, "src"),
      git: {
        kind: "repository",
        root,
        worktree: { kind: "main" },
        branch: { kind: "branch", name: "main" },
        head: { kind: "commit", sha: headOf(root) },
        dirty: false,
      },
    });
  });

  it("dirty for a modified tracked file, a staged change, and an untracked file", async () => {
    const modified = repository("modified", { "a.txt": "a\n" });
    write(modified, "a.txt", "changed\n");
    expect((await probe(modified)).git).toMatchObject({ dirty: true });

    const staged = repository("staged", { "a.txt": "a\n" });
    write(staged, "b.txt", "b\n");
    git(staged, "add", "b.txt");
    expect((await probe(staged)).git).toMatchObject({ dirty: true });

    const untracked = repository("untracked", { "a.txt": "a\n" });
    write(untracked, "new.txt", "new\n");
    expect((await probe(untracked)).git).toMatchObject({ dirty: true });

    // More status output than the probe keeps (4 KiB): still dirty, not unknown.
    const many = repository("many", { "a.txt": "a\n" });
    for (let index = 0; index < 200; index++) write(many, `untracked-file-with-a-long-name-${index}.txt`, "x\n");
    expect((await probe(many)).git).toMatchObject({ dirty: true });
  });

  it("ignored files do not make it dirty, and repository config cannot change what dirty means", async () => {
    const root = repository("configured", { ".gitignore": "*.log\n", "a.txt": "a\n" });
    write(root, "debug.log", "noise\n");
    // status.branch would add a `##` line to the short format, showUntrackedFiles=no would
    // hide untracked files: the probe's explicit options outrank both.
    git(root, "config", "status.branch", "true");
    git(root, "config", "status.showUntrackedFiles", "no");
    git(root, "config", "status.renames", "copies");
    expect((await probe(root)).git).toMatchObject({ dirty: false });
    write(root, "new.txt", "new\n");
    expect((await probe(root)).git).toMatchObject({ dirty: true });
  });

  it("a detached HEAD: no branch, HEAD's commit", async () => {
    const root = repository("detached", { "a.txt": "a\n" });
    git(root, "checkout", "-q", "--detach");
    expect((await probe(root)).git).toEqual({
      kind: "repository",
      root,
      worktree: { kind: "main" },
      branch: { kind: "detached" },
      head: { kind: "commit", sha: headOf(root) },
      dirty: false,
    });
  });

  it("a linked worktree names its branch, its own root and the main worktree", async () => {
    const main = repository("main", { "a.txt": "a\n" });
    const linked = join(temp.path, "linked");
    git(main, "worktree", "add", "-q", "-b", "feature", linked);
    const real = realpathSync(linked);
    write(real, "extra.txt", "extra\n");
    expect((await probe(real)).git).toEqual({
      kind: "repository",
      root: real,
      worktree: { kind: "linked", mainWorktree: main },
      branch: { kind: "branch", name: "feature" },
      head: { kind: "commit", sha: headOf(main) },
      dirty: true,
    });
    // The main worktree itself is still `main`, and clean.
    expect((await probe(main)).git).toMatchObject({ worktree: { kind: "main" }, dirty: false });
  });

  it("an unborn branch says so: the branch is named, HEAD is unborn, not unknown", async () => {
    const root = repository("unborn");
    expect((await probe(root)).git).toEqual({
      kind: "repository",
      root,
      worktree: { kind: "main" },
      branch: { kind: "branch", name: "main" },
      head: { kind: "unborn" },
      dirty: false,
    });
    write(root, "first.txt", "1\n");
    expect((await probe(root)).git).toMatchObject({ head: { kind: "unborn" }, dirty: true });
  });

  it("reads the branch from its full ref, so a tag of the same name does not change it", async () => {
    const root = repository("tagged", { "a.txt": "a\n" });
    git(root, "tag", "main");
    expect((await probe(root)).git).toMatchObject({ branch: { kind: "branch", name: "main" } });
  });

  it("a directory in no repository is `none`, decided without running git", async () => {
    // The premise: nothing above the temporary directory is a repository.
    for (let path = realpathSync(tmpdir()); ; path = dirname(path)) {
      expect(existsSync(join(path, ".git")), `${path} holds a .git; run the tests elsewhere`).toBe(false);
      if (dirname(path) === path) break;
    }
    const plain = directory("plain/deeper");
    const counter = join(temp.path, "invocations");
    const counting = script(join(temp.path, "git-counting"), `echo "$*" >> '${counter}'\nexec git "$@"`);
    expect(await probe(plain, { git: counting })).toEqual({ workingDirectory: plain, git: { kind: "none" } });
    expect(existsSync(counter)).toBe(false);
  });

  it("a .git file counts as a repository marker as much as a .git directory", async () => {
    const main = repository("file-main", { "a.txt": "a\n" });
    const linked = join(temp.path, "file-linked");
    git(main, "worktree", "add", "-q", "--detach", linked);
    expect(readFileSync(join(linked, ".git"), "utf8")).toMatch(/^gitdir: /u);
    expect((await probe(join(linked))).git.kind).toBe("repository");
  });

  it("a missing working directory is `unknown`", async () => {
    const missing = join(temp.path, "missing");
    expect(await probe(missing)).toEqual({ workingDirectory: missing, git: { kind: "unknown" } });
  });

  it("git missing leaves every fact unknown", async () => {
    const root = repository("no-git", { "a.txt": "a\n" });
    expect(await probe(root, { git: "/nonexistent/git" })).toEqual({
      workingDirectory: root,
      git: {
        kind: "repository",
        root: undefined,
        worktree: undefined,
        branch: undefined,
        head: undefined,
        dirty: undefined,
      },
    });
  });

  it("a git that hangs is killed at the timeout and its facts are unknown", async () => {
    const root = repository("hanging", { "a.txt": "a\n" });
    const hanging = script(join(temp.path, "git-hanging"), "exec sleep 30");
    const started = Date.now();
    const environment = await probe(root, { git: hanging, timeoutMs: 200 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(environment.git).toEqual({
      kind: "repository",
      root: undefined,
      worktree: undefined,
      branch: undefined,
      head: undefined,
      dirty: undefined,
    });
  });

  it("only the facts whose invocation timed out are unknown", async () => {
    const root = repository("slow-status", { "a.txt": "a\n" });
    const slowStatus = script(
      join(temp.path, "git-slow-status"),
      'for argument in "$@"; do [ "$argument" = status ] && exec sleep 30; done\nexec git "$@"',
    );
    expect((await probe(root, { git: slowStatus, timeoutMs: 500 })).git).toEqual({
      kind: "repository",
      root,
      worktree: { kind: "main" },
      branch: { kind: "branch", name: "main" },
      head: { kind: "commit", sha: headOf(root) },
      dirty: undefined,
    });
  });

  it("runs git with the safety options and a minimal environment, never a shell", async () => {
    const root = repository("recorded", { "a.txt": "a\n" });
    const logs = directory("invocation-logs");
    // Each invocation's arguments, then the environment variables it was given, in a file of its own.
    const recording = script(
      join(temp.path, "git-recording"),
      `{ printf 'ARGS'; printf ' %s' "$@"; echo; env | sort; } > "$(mktemp '${logs}/invocation.XXXXXX')"\nexec git "$@"`,
    );
    await probe(root, { git: recording });
    const invocations = readdirSync(logs).map((name) => readFileSync(join(logs, name), "utf8"));
    expect(invocations).toHaveLength(7);
    for (const invocation of invocations) {
      const [args = "", ...variables] = invocation.trim().split("\n");
      expect(args).toMatch(
        /^ARGS --no-pager --no-optional-locks -c core\.fsmonitor=false -c core\.hooksPath=\/dev\/null -c protocol\.allow=never /u,
      );
      const names = variables.map((line) => line.slice(0, line.indexOf("="))).filter((name) => name !== "");
      // The shell adds PWD, SHLVL and `_` itself; git was given only these.
      const given = names.filter((name) => !["PWD", "SHLVL", "_", "OLDPWD"].includes(name));
      const allowed = [
        "PATH",
        "HOME",
        "XDG_CONFIG_HOME",
        "LC_ALL",
        "GIT_TERMINAL_PROMPT",
        "GIT_OPTIONAL_LOCKS",
        "GIT_NO_LAZY_FETCH",
        "GIT_PAGER",
        "PAGER",
        "GIT_DISCOVERY_ACROSS_FILESYSTEM",
      ];
      // The filter overrides (here only the listing's canary driver) are the other variables.
      const overrides = /^GIT_CONFIG_(?:COUNT|KEY_\d+|VALUE_\d+)$/u;
      expect(given.filter((name) => !allowed.includes(name) && !overrides.test(name))).toEqual([]);
      expect(variables).toContain("GIT_TERMINAL_PROMPT=0");
    }
    const commands = invocations.map((invocation) => invocation.split("\n")[0]?.split(" ").slice(9).join(" "));
    expect(commands.sort()).toEqual(
      [
        "config -z --name-only --get-regexp ^filter\\.",
        "rev-parse --path-format=absolute --git-common-dir",
        "rev-parse --path-format=absolute --git-dir",
        "rev-parse --show-toplevel",
        "rev-parse -q --verify HEAD",
        "status --porcelain --untracked-files=normal --ignore-submodules=dirty --no-renames",
        "symbolic-ref -q HEAD",
      ].sort(),
    );
  });
});

describe("probeWorkspaceEnvironment runs nothing a repository or config names", () => {
  /** A script that appends `name` to the markers file (and passes its input through, as a filter must). */
  function markers() {
    const log = join(temp.path, "markers.log");
    const mark = script(join(temp.path, "mark"), `printf '%s\\n' "$1" >> '${log}'\nexec cat`);
    return {
      command: (name: string) => `${mark} ${name}`,
      /** The names marked, each once, sorted. */
      read: () => (existsSync(log) ? [...new Set(readFileSync(log, "utf8").split("\n").filter(Boolean))].sort() : []),
      clear: () => rmSync(log, { force: true }),
    };
  }

  /** Hook scripts in `directory` for the hooks the commands could conceivably reach, each marking its name. */
  function plantHooks(directory: string, mark: (name: string) => string): void {
    mkdirSync(directory, { recursive: true });
    const hooks = [
      "post-index-change",
      "reference-transaction",
      "post-checkout",
      "pre-commit",
      "pre-auto-gc",
      "post-rewrite",
      "fsmonitor-watchman",
    ];
    for (const hook of hooks) script(join(directory, hook), `${mark(`hook:${hook}`)}`);
  }

  it.each(["core.hooksPath", ".git/hooks"])(
    "filters (clean, smudge, process, odd driver names, info/attributes), fsmonitor, diff drivers, pagers and hooks in %s",
    async (hookLocation) => {
      const marker = markers();
      // Files are the same size before and after their change, so git must compare contents
      // (and so clean them) to tell: the case that runs filters under `git status`.
      const root = repository("planted", {
        "evil.txt": "aaaa\n",
        "process.txt": "bbbb\n",
        "equals.txt": "cccc\n",
        "empty.txt": "dddd\n",
        "info.txt": "eeee\n",
        "touched.txt": "same\n",
        ".gitattributes": [
          "evil.txt filter=evil diff=evil",
          "process.txt filter=proc",
          "equals.txt filter=A=b",
          "empty.txt filter=",
          "",
        ].join("\n"),
      });
      write(root, ".git/info/attributes", "info.txt filter=infoevil\n");
      const config = (key: string, value: string) => git(root, "config", key, value);
      config("filter.evil.clean", marker.command("filter:evil.clean"));
      config("filter.evil.smudge", marker.command("filter:evil.smudge"));
      config("filter.evil.required", "true");
      config("filter.proc.process", marker.command("filter:proc.process"));
      config("filter.A=b.clean", marker.command("filter:A=b.clean"));
      config("filter.infoevil.clean", marker.command("filter:infoevil.clean"));
      writeFileSync(
        join(root, ".git/config"),
        `${readFileSync(join(root, ".git/config"), "utf8")}[filter ""]\n\tclean = ${marker.command("filter:empty.clean")}\n`,
      );
      config("core.fsmonitor", marker.command("fsmonitor"));
      config("diff.external", marker.command("diff.external"));
      config("diff.evil.textconv", marker.command("diff:evil.textconv"));
      config("diff.evil.command", marker.command("diff:evil.command"));
      config("core.pager", marker.command("core.pager"));
      config("pager.status", marker.command("pager.status"));
      if (hookLocation === "core.hooksPath") {
        plantHooks(join(temp.path, "hooks"), marker.command);
        config("core.hooksPath", join(temp.path, "hooks"));
      } else {
        plantHooks(join(root, ".git/hooks"), marker.command);
      }
      for (const [file, text] of Object.entries({
        "evil.txt": "AAAA\n",
        "process.txt": "BBBB\n",
        "equals.txt": "CCCC\n",
        "empty.txt": "DDDD\n",
        "info.txt": "EEEE\n",
      })) {
        write(root, file, text);
      }
      // Same contents, a new time: a careless status refreshes the index, writes it and so
      // runs post-index-change.
      utimesSync(join(root, "touched.txt"), new Date(2_000_000_000_000), new Date(2_000_000_000_000));

      const environment = await probe(root);
      expect(marker.read()).toEqual([]);
      expect(environment.git).toMatchObject({ kind: "repository", root, dirty: true });

      // The control: each vector is live, so it is the probe's precautions that stopped it.
      naiveStatus(root);
      expect(marker.read()).toEqual(
        expect.arrayContaining([
          "filter:A=b.clean",
          "filter:empty.clean",
          "filter:evil.clean",
          "filter:infoevil.clean",
          "filter:proc.process",
          "fsmonitor",
          "hook:post-index-change",
        ]),
      );
    },
  );

  it("a git that ignores GIT_CONFIG_COUNT (older than 2.31), or a failed listing of drivers, never gets to status", async () => {
    const root = repository("unlisted", { "a.txt": "a\n" });
    const log = join(temp.path, "commands.log");
    // Logs each command, then runs git as one that knows nothing of the override variables.
    const oldGit = script(
      join(temp.path, "git-old"),
      `printf '%s\\n' "$*" >> '${log}'\nunset GIT_CONFIG_COUNT\nexec git "$@"`,
    );
    expect((await probe(root, { git: oldGit })).git).toMatchObject({
      branch: { kind: "branch", name: "main" },
      dirty: undefined,
    });
    const failingConfig = script(
      join(temp.path, "git-failing-config"),
      `printf '%s\\n' "$*" >> '${log}'\nfor argument in "$@"; do [ "$argument" = config ] && exit 3; done\nexec git "$@"`,
    );
    expect((await probe(root, { git: failingConfig })).git).toMatchObject({
      head: { kind: "commit" },
      dirty: undefined,
    });
    const commands = readFileSync(log, "utf8").split("\n").filter(Boolean);
    expect(commands).toHaveLength(12);
    expect(commands.filter((line) => line.includes(" status "))).toEqual([]);
  });

  it("a partial clone's lazy fetch, which would run remote.<name>.uploadpack, is never made", async () => {
    const marker = markers();
    const source = repository("source", { "d/f.txt": `${Array.from({ length: 200 }, (_, i) => i).join("\n")}\n` });
    git(source, "mv", "d/f.txt", "e.txt");
    writeFileSync(join(source, "e.txt"), `${readFileSync(join(source, "e.txt"), "utf8")}one more line\n`);
    git(source, "commit", "-q", "-am", "move and change");
    git(source, "config", "uploadpack.allowFilter", "true");
    git(temp.path, "clone", "-q", "--filter=blob:none", pathToFileURL(source).href, "partial");
    const partial = realpathSync(join(temp.path, "partial"));
    // The index keeps the moved file, HEAD goes back before the move: status would detect the
    // rename by content, and the old blob was never fetched.
    git(partial, "reset", "-q", "--soft", "HEAD~1");
    const uploadPack = script(
      join(temp.path, "upload-pack"),
      `${marker.command("uploadpack")} </dev/null\nexec git upload-pack "$@"`,
    );
    git(partial, "config", "remote.origin.uploadpack", uploadPack);

    expect((await probe(partial)).git).toMatchObject({ kind: "repository", dirty: true });
    expect(marker.read()).toEqual([]);

    naiveStatus(partial);
    expect(marker.read()).toEqual(["uploadpack"]);
  });

  it("a submodule's own filters do not run: changes inside a submodule are not looked into", async () => {
    const marker = markers();
    const library = repository("library", { "lib.txt": "1111\n", ".gitattributes": "lib.txt filter=subevil\n" });
    const root = repository("super", { "a.txt": "a\n" });
    git(root, "submodule", "add", "-q", library, "lib");
    git(root, "commit", "-q", "-m", "add submodule");
    git(join(root, "lib"), "config", "filter.subevil.clean", marker.command("filter:subevil.clean"));
    write(join(root, "lib"), "lib.txt", "2222\n");

    // Changes inside the submodule are not counted: seeing them means running its config.
    expect((await probe(root)).git).toMatchObject({ kind: "repository", dirty: false });
    expect(marker.read()).toEqual([]);

    naiveStatus(root);
    expect(marker.read()).toEqual(["filter:subevil.clean"]);

    // A submodule at another commit still counts.
    git(join(root, "lib"), "commit", "-q", "-am", "change");
    expect((await probe(root)).git).toMatchObject({ dirty: true });
  });
});

describe("createWorkspaceEnvironmentPlugin in a Runner", () => {
  it("delivers the facts as context of every request, probed once per Run and again for the next Run", async () => {
    const root = repository("e2e", { "a.txt": "a\n" });
    const log = join(temp.path, "invocations.log");
    const counting = script(join(temp.path, "git-counting"), `printf '%s\\n' "$*" >> '${log}'\nexec git "$@"`);
    const invocations = () => readFileSync(log, "utf8").split("\n").filter(Boolean);
    const statusRuns = () => invocations().filter((line) => line.includes(" status ")).length;

    // A tool that dirties the repository in the middle of the first Run.
    const scribble = defineTool({
      name: "scribble",
      description: "Writes a file",
      inputSchema: { type: "object", properties: {} },
      execute: () => {
        write(root, "scribble.txt", "new\n");
        return "written";
      },
    });
    const model = scriptedModel([
      { toolCalls: [{ name: "scribble", input: {} }] },
      { text: "done" },
      { text: "second run" },
    ]);
    const runner = await createNodeRunner({
      agent: defineAgent("test.environment", { model, tools: [scribble] }),
      permissions: "full-access",
      plugins: [createWorkspaceEnvironmentPlugin({ workingDirectory: pathToFileURL(root).href, git: counting })],
    });
    cleanups.push(() => runner.close());
    const session = cleanups.closeLater(await runner.createSession());

    expect((await drain(session.run("first"))).error).toBeUndefined();
    expect(statusRuns()).toBe(1);
    const perProbe = invocations().length;
    expect(perProbe).toBe(7);
    const [first, second] = model.requests as ModelRequest[];
    const sha = headOf(root);
    const clean = [
      "## Environment",
      "Observed before this Run's first model request; commands run since may have changed it.",
      `- Working directory: ${root}`,
      `- Repository root: ${root}`,
      "- Worktree: main",
      "- Branch: `main`",
      `- HEAD: ${sha}`,
      "- Dirty: no",
    ].join("\n");
    expect(first?.context).toBe(clean);
    // Frozen for the Run: the tool made the repository dirty, the second request still says no.
    expect(second?.context).toBe(clean);
    // Context only: the history holds no trace of it.
    expect(JSON.stringify(second?.messages)).not.toContain("## Environment");

    expect((await drain(session.run("second"))).error).toBeUndefined();
    expect(statusRuns()).toBe(2);
    expect(invocations()).toHaveLength(2 * perProbe);
    expect(model.requests[2]?.context).toBe(
      clean.replace("- Dirty: no", "- Dirty: yes (git status --porcelain lists changes)"),
    );
    model.assertComplete();
  });

  it("appends after existing context with a blank line, and each concurrent Session probes its own", async () => {
    const root = repository("sessions", { "a.txt": "a\n" });
    const log = join(temp.path, "invocations.log");
    const counting = script(join(temp.path, "git-counting"), `printf '%s\\n' "$*" >> '${log}'\nexec git "$@"`);
    const model = scriptedModel([{ text: "one" }, { text: "two" }]);
    const runner = await createNodeRunner({
      agent: defineAgent("test.environment-sessions", {
        model,
        capabilities: [
          defineCapability({
            name: "now",
            instructions: [{ name: "now", text: "Existing context.", placement: "context" }],
          }),
        ],
      }),
      plugins: [createWorkspaceEnvironmentPlugin({ workingDirectory: pathToFileURL(root), git: counting })],
    });
    cleanups.push(() => runner.close());
    const a = cleanups.closeLater(await runner.createSession());
    const b = cleanups.closeLater(await runner.createSession());
    const [ranA, ranB] = await Promise.all([drain(a.run("a")), drain(b.run("b"))]);
    expect(ranA.error).toBeUndefined();
    expect(ranB.error).toBeUndefined();
    const statusRuns = readFileSync(log, "utf8")
      .split("\n")
      .filter((line) => line.includes(" status ")).length;
    expect(statusRuns).toBe(2);
    for (const request of model.requests) {
      expect(request.context).toMatch(/^[\s\S]*Existing context\.\n\n## Environment\n/u);
      expect(request.context).toContain("- Dirty: no");
    }
  });

  it("in no repository, says so without running git", async () => {
    const plain = directory("plain");
    const model = scriptedModel([{ text: "ok" }]);
    const runner = await createNodeRunner({
      agent: defineAgent("test.environment-plain", { model }),
      plugins: [createWorkspaceEnvironmentPlugin({ workingDirectory: pathToFileURL(plain), git: "/nonexistent/git" })],
    });
    cleanups.push(() => runner.close());
    const session = cleanups.closeLater(await runner.createSession());
    expect((await drain(session.run("hi"))).error).toBeUndefined();
    expect(model.requests[0]?.context).toContain(
      `- Working directory: ${plain}\n- Git repository: none (no .git in the working directory or any parent)`,
    );
  });
});
