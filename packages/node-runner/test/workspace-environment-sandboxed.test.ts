// The environment probe in an OS workspace Session: the agent's sandboxed command plants a
// `.git/commondir` (which the sandbox does not protect) pointing to a copy of `.git` whose
// config names a marker program for `core.fsmonitor` and a filter driver. The next Run's probe
// runs its git in the Session's sandbox: the facts come through and the marker never runs. The
// control runs the same probe over the same plant through host git with the probe's
// neutralization left out, and the marker runs as the host's user, outside the sandbox.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { defineAgent } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { describe, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { commandContainmentOf } from "../src/capabilities/commands/host/command-containment.js";
import { filterOverrideVariables } from "../src/capabilities/untrusted-git/safety.js";
import type { ProbeGit } from "../src/capabilities/workspace/environment/git-runners.js";
import { createWorkspaceEnvironmentPlugin } from "../src/capabilities/workspace/environment/index.js";
import { resolveEnvironmentOptions } from "../src/capabilities/workspace/environment/options.js";
import { probeResolved } from "../src/capabilities/workspace/environment/probe.js";
import {
  createNodeRunner,
  type NodeRunnerPlugin,
  type Session,
  type SessionLookup,
  type WorkspaceOptions,
  workspace,
} from "../src/index.js";
import { cleanupAfterEach, drain, extraTempDirs, tempDirPerTest } from "./support/index.ts";

const temp = tempDirPerTest("castellan-environment-os-");
const cleanups = cleanupAfterEach();
const extraDir = extraTempDirs();
const slow = 60_000;

// Set-up git on the host never reads the user's or the system's config, and runs no hook.
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

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync("git", ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", ...args], {
    cwd,
    env: setupEnvironment,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}

/**
 * What the agent runs through `exec_command`: a copy of `.git` as a common directory of its
 * own, whose config runs `mark` as the fsmonitor and as the clean filter of `a.txt` (changed
 * at the same size, so `status` must clean it to compare), and `.git/commondir` naming it.
 * `mark` records its name inside the root (which the sandbox may write) and in `outside`
 * (which only a process outside the sandbox can write).
 */
function plantScript(root: string, outside: string): string {
  const mark = join(root, "mark");
  return [
    "set -e",
    "cp -R .git planted-common",
    `cat > mark <<'EOF'`,
    "#!/bin/sh",
    `printf '%s\\n' "$1" >> '${join(root, "ran-inside.log")}'`,
    `printf '%s\\n' "$1" >> '${join(outside, "ran-outside.log")}'`,
    "exec cat",
    "EOF",
    "chmod +x mark",
    `git config -f planted-common/config core.fsmonitor '${mark} fsmonitor'`,
    `git config -f planted-common/config filter.planted.clean '${mark} filter:planted.clean'`,
    "printf 'a.txt filter=planted\\n' > .gitattributes",
    "printf 'AAAA\\n' > a.txt",
    `printf '%s\\n' "$PWD/planted-common" > .git/commondir`,
  ].join("\n");
}

/** The names the marker recorded in `log`, each once, sorted. */
function marks(log: string): string[] {
  return existsSync(log) ? [...new Set(readFileSync(log, "utf8").split("\n").filter(Boolean))].sort() : [];
}

/** A Session of an agent with one `workspace()` over the test's directory. */
async function workspaceSession(
  options: Partial<WorkspaceOptions>,
  plugins: NodeRunnerPlugin[] = [],
): Promise<Session> {
  const root = realpathSync(temp.path);
  const runner = await createNodeRunner({
    agent: defineAgent("test.environment-containment", {
      model: scriptedModel([]),
      capabilities: [workspace({ root: pathToFileURL(`${root}/`), sandbox: "none", ...options })],
    }),
    plugins,
  });
  cleanups.push(() => runner.close());
  return cleanups.closeLater(await runner.createSession());
}

describe("host.sessions, how the probe's hook finds its Session", () => {
  it("finds the Session during its Run's hooks and forgets it once closed", async () => {
    let lookup: SessionLookup | undefined;
    const seen: (Session | undefined)[] = [];
    const finder: NodeRunnerPlugin = {
      name: "test.finder",
      apply(host) {
        lookup = host.sessions;
        host.hooks.beforeModel((_request, info) => {
          seen.push(host.sessions.get(info.sessionId));
        });
      },
    };
    const runner = await createNodeRunner({
      agent: defineAgent("test.finder", { model: scriptedModel([{ text: "ok" }]) }),
      plugins: [finder],
    });
    cleanups.push(() => runner.close());
    const session = await runner.createSession();
    expect((await drain(session.run("hi"))).error).toBeUndefined();
    expect(seen).toEqual([session]);
    await session.close();
    expect(lookup?.get(session.id)).toBeUndefined();
  });
});

describe("commandContainmentOf, which decides where the probe's git runs", () => {
  it("is uncontained for a `none` workspace's commands and none for a read-only one", async () => {
    expect(commandContainmentOf(await workspaceSession({}))).toBe("uncontained");
    expect(commandContainmentOf(await workspaceSession({ readOnly: true }))).toBe("none");
  });
});

describeNeeding(osSandboxPrograms, "the environment probe in an OS workspace Session", () => {
  it(
    "an OS workspace's commands are sandboxed",
    async () => expect(commandContainmentOf(await workspaceSession({ sandbox: "os" }))).toBe("sandboxed"),
    slow,
  );

  it(
    "runs git in the Session's sandbox: a planted commondir's fsmonitor and filter never run, the facts still come",
    async () => {
      const root = realpathSync(temp.path);
      const outside = await extraDir("castellan-environment-outside-");
      git(root, "init", "-q", "-b", "main");
      writeFileSync(join(root, "a.txt"), "aaaa\n");
      git(root, "add", "a.txt");
      git(root, "commit", "-q", "-m", "initial");
      const sha = git(root, "rev-parse", "HEAD").trim();
      // The probe's git, which logs each call where it can: only a git outside the sandbox can
      // write `outside`, and a sandboxed one can write the root.
      const loggingGit = join(outside, "git");
      writeFileSync(
        loggingGit,
        [
          "#!/bin/sh",
          `printf '%s\n' "$*" >> '${join(outside, "git-calls.log")}' 2>/dev/null`,
          `printf '%s\n' "$*" >> '${join(root, ".git-calls.log")}' 2>/dev/null`,
          'exec git "$@"',
          "",
        ].join("\n"),
      );
      chmodSync(loggingGit, 0o755);

      const model = scriptedModel([
        { toolCalls: [{ name: "exec_command", input: { command: plantScript(root, outside) } }] },
        { text: "planted" },
        { text: "second run" },
      ]);
      const runner = await createNodeRunner({
        agent: defineAgent("test.environment-os", {
          model,
          capabilities: [workspace({ root: pathToFileURL(`${root}/`), sandbox: "os", commands: { killGraceMs: 200 } })],
        }),
        permissions: "full-access",
        plugins: [
          createWorkspaceEnvironmentPlugin({
            workingDirectory: pathToFileURL(root),
            git: loggingGit,
            timeoutMs: 20_000,
          }),
        ],
      });
      cleanups.push(() => runner.close());
      const session = cleanups.closeLater(await runner.createSession());

      expect((await drain(session.run("plant"))).error).toBeUndefined();
      // The plant took: the sandbox lets the agent write `.git/commondir`.
      expect(readFileSync(join(root, ".git/commondir"), "utf8")).toBe(`${root}/planted-common\n`);
      expect(existsSync(join(root, "mark"))).toBe(true);

      expect((await drain(session.run("again"))).error).toBeUndefined();
      model.assertComplete();
      // Git itself follows the commondir, so the worktree reads as linked to a common directory
      // not named `.git`; every fact is known.
      expect(model.requests[2]?.context).toContain(
        [
          `- Working directory: ${root}`,
          `- Repository root: ${root}`,
          "- Worktree: linked (main worktree: unknown)",
          "- Branch: `main`",
          `- HEAD: ${sha}`,
          "- Dirty: yes (git status --porcelain lists changes)",
        ].join("\n"),
      );
      // Each of the probe's seven invocations ran in the sandbox, none on the host.
      expect(readFileSync(join(root, ".git-calls.log"), "utf8").trim().split("\n")).toHaveLength(14);
      expect(existsSync(join(outside, "git-calls.log"))).toBe(false);
      // The marker ran neither outside the sandbox nor inside it: the probe's options apply there too.
      expect(marks(join(outside, "ran-outside.log"))).toEqual([]);
      expect(marks(join(root, "ran-inside.log"))).toEqual([]);
      await session.close();

      // The control: the same probe over the same plant through host git without the probe's
      // options and filter overrides (only the canary driver, so the probe gets to `status`).
      // The host's own probe also overrides these two keys; the point is that a host git reads
      // what the agent wrote, and anything its deny-list missed would run as the host's user.
      const unneutralized: ProbeGit = async (args) => {
        const result = spawnSync("git", args, {
          cwd: root,
          env: { ...setupEnvironment, ...filterOverrideVariables(["castellan-probe-canary"]) },
          encoding: "utf8",
          stdio: ["ignore", "pipe", "pipe"],
          timeout: 20_000,
        });
        return result.status === null
          ? { kind: "failed", cause: result.error }
          : { kind: "exited", code: result.status, stdout: result.stdout };
      };
      const options = resolveEnvironmentOptions({ workingDirectory: pathToFileURL(root) });
      expect((await probeResolved(options, unneutralized)).git).toMatchObject({ kind: "repository", dirty: true });
      expect(marks(join(outside, "ran-outside.log"))).toEqual(["filter:planted.clean", "fsmonitor"]);
    },
    slow,
  );
});
