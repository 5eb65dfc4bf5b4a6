// The clone's credentials and the checkout the server prepares: the repository token reaches
// git only through the environment of the server's own clone and push (an http.extraHeader
// through GIT_CONFIG_COUNT), never an argv, .git/config, a log line, a view, the transcript or
// a command's env; the commit identity is the server's (commitAuthor) for the agent's commits
// too (set in the checkout's config); the sentinels are git-excluded; a wrong token fails the clone without quoting it; a
// resumed run whose work branch is on the remote starts from its tip with the base commit fetched.

import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { ModelBinding } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { spawnDetached } from "@castellan/node-runner";
import { afterEach, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import type { SpawnProcess } from "../src/index.js";
import { startGitHttpServer } from "./git-http.ts";
import { bareRepository, git, jobBody, send, settled, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-git-auth-");
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const repoToken = "repo-token-0123456789-abcdefghij";
const encoded = Buffer.from(`x-access-token:${repoToken}`).toString("base64");
const run = (command: string): ScriptedStepSource => ({ toolCalls: [{ name: "exec_command", input: { command } }] });

/** Every file's text under `directory`. */
async function textsUnder(directory: string): Promise<string> {
  const texts: string[] = [];
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) texts.push(await readFile(join(entry.parentPath, entry.name), "utf8"));
  }
  return texts.join("\n");
}

describeNeeding(osSandboxPrograms, "the clone's credentials and checkout", () => {
  it("keeps the token to the server's own clone and push, and sets the commit identity and exclusions", async () => {
    const bare = await bareRepository(temp.path);
    const remote = await startGitHttpServer(dirname(bare), repoToken);
    cleanups.push(() => remote.close());
    const spawned: { args: readonly string[]; env: Readonly<Record<string, string>> }[] = [];
    const recording: SpawnProcess = (command, args, options) => {
      spawned.push({ args, env: options.env });
      return spawnDetached(command, args, options);
    };
    const model = scriptedModel([
      run('cat .git/config > seen-config.txt; env > seen-env.txt; echo \'{"level":"small"}\' > .castellan-effort.json'),
      { text: "Done." },
    ]);
    const started = await startServer({
      modelFactory: () => model,
      spawn: recording,
      commitAuthor: "Job Bot <job-bot@localhost>",
    });
    cleanups.push(() => started.server.close());
    await send(started.port, "POST", "/run", {
      body: JSON.stringify(
        jobBody({ jobId: "tokened", repo: { url: remote.url("origin.git"), baseBranch: "main", token: repoToken } }),
      ),
    });
    const view = await settled(started.port, "tokened");
    expect(view.state).toBe("succeeded");
    const main = (await git(["--git-dir", bare, "rev-parse", "main"], temp.path)).trim();
    expect(view.baseSha).toBe(main);

    const show = (file: string) => git(["--git-dir", bare, "show", `castellan/tokened:${file}`], temp.path);
    const config = await show("seen-config.txt");
    expect(config).toContain("name = Job Bot");
    expect(config).not.toContain(repoToken);
    expect(config).not.toContain(encoded);
    const env = await show("seen-env.txt");
    expect(env).not.toContain(repoToken);
    // (The sandbox sets git settings of its own for its proxy; the header is not among them.)
    expect(env).not.toContain("extraHeader");
    expect(env).not.toContain("Authorization: Basic");
    // The identity is the checkout's own (.git/config above), so every commit in it has it;
    // the sentinel was never committed.
    const authors = await git(["--git-dir", bare, "log", "-1", "--format=%an <%ae>", "castellan/tokened"], temp.path);
    expect(authors.trim()).toBe("Job Bot <job-bot@localhost>");
    const tree = await git(["--git-dir", bare, "ls-tree", "-r", "--name-only", "castellan/tokened"], temp.path);
    expect(tree).not.toContain(".castellan-effort.json");

    // Only the network commands carried the header, and no argv ever did.
    for (const entry of spawned) {
      expect(entry.args.join(" ")).not.toContain(repoToken);
      expect(entry.args.join(" ")).not.toContain(encoded);
      const verb = entry.args.find((arg, index, all) => arg !== "-c" && all[index - 1] !== "-c");
      if (verb === "clone" || verb === "push") {
        expect(entry.env.GIT_CONFIG_VALUE_0).toBe(`Authorization: Basic ${encoded}`);
      } else {
        expect(entry.env.GIT_CONFIG_COUNT, verb).toBeUndefined();
      }
    }
    expect(remote.requests.length).toBeGreaterThan(0);
    expect(remote.requests.every((request) => request.authorized)).toBe(true);
    expect(remote.requests.some((request) => request.path.includes("git-receive-pack"))).toBe(true);
    // Nowhere the server shows or keeps anything.
    for (const shown of [JSON.stringify(view), JSON.stringify(started.logged), await textsUnder(started.directory)]) {
      expect(shown).not.toContain(repoToken);
      expect(shown).not.toContain(encoded);
    }
  }, 120_000);

  it("fails a clone refused for its token with git-failed, quoting no token", async () => {
    const bare = await bareRepository(temp.path);
    const remote = await startGitHttpServer(dirname(bare), repoToken);
    cleanups.push(() => remote.close());
    const model = scriptedModel([{ text: "Never asked." }]);
    const started = await startServer({ modelFactory: () => model });
    cleanups.push(() => started.server.close());
    const wrong = "wrong-token-0123456789-abcdefghij";
    await send(started.port, "POST", "/run", {
      body: JSON.stringify(
        jobBody({ jobId: "refused", repo: { url: remote.url("origin.git"), baseBranch: "main", token: wrong } }),
      ),
    });
    const view = await settled(started.port, "refused");
    expect(view).toMatchObject({ state: "failed", phase: "clone", error: { code: "git-failed" } });
    expect(JSON.stringify(view)).not.toContain(wrong);
    expect(remote.requests.some((request) => !request.authorized)).toBe(true);
    expect(model.requests).toHaveLength(0);
  }, 60_000);

  it("resumes on the work branch the remote already has, with the base commit fetched", async () => {
    const bare = await bareRepository(temp.path);
    // A model that holds its call until the server stops, then errors.
    let asked = 0;
    const held: ModelBinding = {
      specifier: "test/held",
      async *stream(_request, { signal }) {
        asked++;
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        yield { type: "error", error: new Error("stopped") };
      },
    };
    const data = join(temp.path, "data");
    const first = await startServer({ allowFileRemotes: true, modelFactory: () => held, dataDirectory: data });
    const body = jobBody({ jobId: "job-r", repo: { url: `file://${bare}`, baseBranch: "main" } });
    await send(first.port, "POST", "/run", { body: JSON.stringify(body) });
    for (let wait = 0; wait < 1_800 && asked === 0; wait++) await new Promise((resolve) => setTimeout(resolve, 50));
    const baseSha = (await send(first.port, "GET", "/jobs/job-r")).json.baseSha as string;
    expect(baseSha).toMatch(/^[0-9a-f]{40}$/);
    await first.server.close();

    // Meanwhile the work branch got a commit on the remote (an earlier run's checkpoint).
    const seed = join(temp.path, "seed-r");
    await git(["clone", "-q", bare, seed], temp.path);
    await git(["checkout", "-q", "-b", "castellan/job-r"], seed);
    await git(["commit", "-q", "--allow-empty", "-m", "earlier work"], seed);
    await git(["push", "-q", "origin", "castellan/job-r"], seed);

    const model = scriptedModel([
      run(`git log --format=%s > log.txt; git cat-file -t ${baseSha} > base.txt`),
      { text: "Resumed." },
    ]);
    const second = await startServer({ allowFileRemotes: true, modelFactory: () => model, dataDirectory: data });
    cleanups.push(() => second.server.close());
    await send(second.port, "POST", "/run", { body: JSON.stringify(body) });
    const view = await settled(second.port, "job-r");
    expect(view).toMatchObject({ state: "succeeded", pass: "resume-1", baseSha });
    const show = (file: string) => git(["--git-dir", bare, "show", `castellan/job-r:${file}`], temp.path);
    expect(await show("log.txt")).toContain("earlier work");
    expect((await show("base.txt")).trim()).toBe("commit");
  }, 120_000);
});
