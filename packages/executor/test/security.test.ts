// Per-job state and the sandbox boundary: under umask 000 every file the server writes is 0600
// and every directory 0700; a job's commands get an explicit environment (no NODE_ENV, PORT or
// CASTELLAN_EXECUTOR_*, HOME the job's own), and cannot read another job's checkout, any
// secrets/, the token file or the server's environment.
import { mkdir, readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ModelBinding, ModelStreamEvent } from "@castellan/harness";
import { type ScriptedStep, type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { spawnDetached } from "@castellan/node-runner";
import { afterEach, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import type { ModelFactory, SpawnProcess } from "../src/index.js";
import { bareRepository, git, jobBody, send, settled, startServer, tempDirPerTest, testToken } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-security-");
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const run = (command: string): ScriptedStepSource => ({ toolCalls: [{ name: "exec_command", input: { command } }] });

/** Every file and directory under `root` with its permission bits. */
async function modes(root: string): Promise<{ path: string; directory: boolean; mode: number }[]> {
  const found: { path: string; directory: boolean; mode: number }[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    // A record's temporary file may be renamed between the listing and the stat: it is the record's own save.
    const stats = await stat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (stats) found.push({ path, directory: entry.isDirectory(), mode: stats.mode & 0o777 });
  }
  return found;
}

describeNeeding(osSandboxPrograms, "per-job state and the sandbox boundary", () => {
  it("writes 0600 files in 0700 directories whatever the umask, and gives commands the job's own environment", async () => {
    const previous = process.umask(0o000);
    cleanups.push(() => {
      process.umask(previous);
    });
    const saved = {
      PORT: process.env.PORT,
      NODE_ENV: process.env.NODE_ENV,
      SECRET: process.env.CASTELLAN_EXECUTOR_TOKEN,
    };
    process.env.PORT = "4321";
    process.env.NODE_ENV = "production";
    process.env.CASTELLAN_EXECUTOR_TOKEN = testToken;
    cleanups.push(() => {
      for (const [name, value] of [
        ["PORT", saved.PORT],
        ["NODE_ENV", saved.NODE_ENV],
        ["CASTELLAN_EXECUTOR_TOKEN", saved.SECRET],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });
    const bare = await bareRepository(temp.path);
    const model = scriptedModel([
      run("env > env.txt; nice > nice.txt"),
      { toolCalls: [{ name: "create_task", input: { title: "Check the environment" } }] },
      { text: "done" },
    ]);
    // The spawn seam: every process the server starts of its own, with its argv and environment.
    const spawned: {
      command: string;
      args: readonly string[];
      cwd: string;
      env: Readonly<Record<string, string>>;
    }[] = [];
    const recording: SpawnProcess = (command, args, options) => {
      spawned.push({ command, args, cwd: options.cwd, env: { ...options.env } });
      return spawnDetached(command, args, options);
    };
    const started = await startServer({ allowFileRemotes: true, modelFactory: () => model, spawn: recording });
    cleanups.push(() => started.server.close());
    await send(started.port, "POST", "/run", {
      body: JSON.stringify(jobBody({ jobId: "modes", repo: { url: `file://${bare}`, baseBranch: "main" } })),
    });
    const view = await settled(started.port, "modes");
    expect(view.state).toBe("succeeded");
    // The boot-time sandbox record too, once it is in.
    for (let wait = 0; wait < 600; wait++) {
      if ((await send(started.port, "GET", "/health", { auth: null })).json.sandbox.boot !== "unmeasured") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await stat(started.server.options.sandboxStatusFile)).mode & 0o777).toBe(0o600);
    const written = [
      ...(await modes(join(started.directory, "data"))),
      ...(await modes(join(started.directory, "transcripts"))),
    ];
    // What the job's commands write in its home is theirs; everything else is the server's.
    const commandsOwn = (path: string) => path.includes(join("modes", "home")) || path.includes(join("modes", "hooks"));
    const files = written.filter((entry) => !entry.directory && !commandsOwn(entry.path));
    expect(files.length).toBeGreaterThan(3);
    for (const entry of files) expect(entry.mode, entry.path).toBe(0o600);
    for (const entry of written.filter((item) => item.directory && !commandsOwn(item.path))) {
      expect(entry.mode & 0o077, entry.path).toBe(0);
    }
    const env = await git(["--git-dir", bare, "show", "castellan/modes:env.txt"], temp.path);
    const names = env.split("\n").map((line) => line.slice(0, line.indexOf("=")));
    expect(names).not.toContain("NODE_ENV");
    expect(names).not.toContain("PORT");
    expect(names.filter((name) => name.startsWith("CASTELLAN_EXECUTOR_"))).toEqual([]);
    expect(env).not.toContain(testToken);
    expect(env).toContain(`HOME=${join(started.directory, "data", "jobs", "modes", "home")}`);
    // The job's commands yield the CPU to the server (jobNiceness, 10 by default).
    expect(await git(["--git-dir", bare, "show", "castellan/modes:nice.txt"], temp.path)).toBe("10\n");

    // The server's own git: no hooks, no credential helper, an explicit environment, a home of
    // its own. On the checkout it runs only before the agent (clone, branch, identity, the
    // seed of the publish repository); the commit (salvage) and everything after the agent ran
    // in the sandbox, and the push ran from the server's publish repository.
    const job = join(started.directory, "data", "jobs", "modes");
    expect(spawned.map((entry) => entry.command)).toEqual(spawned.map(() => "git"));
    // Each command's verb: the first argument after the `-c` settings.
    const verbs = spawned.map((entry) => entry.args.find((arg, index, all) => arg !== "-c" && all[index - 1] !== "-c"));
    expect(verbs).toEqual(expect.arrayContaining(["clone", "checkout", "init", "fetch", "push"]));
    expect(verbs).not.toContain("add");
    expect(verbs).not.toContain("commit");
    expect(verbs).not.toContain("status");
    const agentStarted = spawned.findIndex((entry) => entry.args.includes("--update-shallow"));
    expect(agentStarted).toBeGreaterThan(0);
    for (const entry of spawned.slice(agentStarted + 1))
      expect(entry.cwd, entry.args.join(" ")).not.toContain("checkout");
    for (const entry of spawned) {
      expect(entry.args.slice(0, 4)).toEqual([
        "-c",
        `core.hooksPath=${join(job, "hooks")}`,
        "-c",
        "credential.helper=",
      ]);
      expect(entry.args.join(" ")).not.toContain("model-secret-token-value");
      expect(entry.env.HOME).toBe(join(job, "server-home"));
      expect(entry.env.GIT_CONFIG_GLOBAL).toBe("/dev/null");
      expect(Object.keys(entry.env).filter((name) => /^(NODE_ENV|PORT|CASTELLAN_EXECUTOR_.*)$/.test(name))).toEqual([]);
    }
    const clone = spawned.find((entry) => entry.args[4] === "clone");
    expect(clone?.args.slice(4)).toEqual([
      "clone",
      "--depth",
      "1",
      "--single-branch",
      "--branch",
      "main",
      "--no-tags",
      `file://${bare}`,
      join(job, "checkout"),
    ]);
    // An explicit sha to the branch's full ref, from the publish repository to the remote's URL.
    const head = (await git(["rev-parse", "castellan/modes"], bare)).trim();
    const push = spawned.find((entry) => entry.args[4] === "push");
    expect(push?.args.slice(4)).toEqual([
      "push",
      "--no-verify",
      `file://${bare}`,
      `${head}:refs/heads/castellan/modes`,
    ]);
    expect(push?.cwd).toBe(join(job, "publish.git"));
  }, 120_000);

  it("keeps another job's checkout, every secrets/ folder, the token file and the server's environment out of a job's reach", async () => {
    const tokenFile = join(temp.path, "token");
    await writeFile(tokenFile, `${testToken}\n`, { mode: 0o600 });
    const bare = await bareRepository(temp.path);
    // The first job holds its model step, so its checkout exists while the second job runs.
    let releaseHeld: () => void = () => undefined;
    const heldModel: ModelBinding = {
      specifier: "test/held",
      async *stream(_request, { signal }): AsyncGenerator<ModelStreamEvent> {
        await new Promise<void>((resolve) => {
          releaseHeld = resolve;
          signal.addEventListener("abort", () => resolve(), { once: true });
        });
        yield { type: "text-delta", text: "released" };
        yield { type: "finish", stopReason: "end" };
      },
    };
    let data = "";
    const probes = (): ScriptedStepSource[] => {
      const held = join(data, "jobs", "held");
      return [
        run(
          `cat ${join(held, "checkout", "README.md")} > other-checkout.txt 2>&1; echo "exit $?" >> other-checkout.txt`,
        ),
        run(`cat ${join(held, "secrets", "repo-token")} > secrets.txt 2>&1; echo "exit $?" >> secrets.txt`),
        run(`cat ${tokenFile} > token.txt 2>&1; echo "exit $?" >> token.txt`),
        run(
          `ps -eo pid,args > processes.txt 2>&1; cat /proc/${process.pid}/environ > environ.txt 2>&1; echo "exit $?" >> environ.txt`,
        ),
        { text: "probed" },
      ];
    };
    // The steps are built when asked for: the data directory is known only once the server runs.
    const prober = scriptedModel([0, 1, 2, 3, 4].map((index) => () => probes()[index] as ScriptedStep));
    const factory: ModelFactory = (model) => (model.id === "held" ? heldModel : prober);
    const started = await startServer({
      allowFileRemotes: true,
      modelFactory: factory,
      env: { CASTELLAN_EXECUTOR_TOKEN_FILE: tokenFile },
      token: undefined,
      maxConcurrentJobs: 2,
    });
    cleanups.push(() => started.server.close());
    data = started.server.options.dataDirectory;
    const base = { repo: { url: `file://${bare}`, baseBranch: "main" } };
    await send(started.port, "POST", "/run", {
      body: JSON.stringify(
        jobBody({ jobId: "held", model: { provider: "anthropic", token: "k-held-0123456789", id: "held" }, ...base }),
      ),
    });
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const view = (await send(started.port, "GET", "/jobs/held")).json;
      if (view.phase === "agent") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await mkdir(join(data, "jobs", "held", "secrets"), { recursive: true, mode: 0o700 });
    await writeFile(join(data, "jobs", "held", "secrets", "repo-token"), "repo-secret-in-a-file", { mode: 0o600 });
    await send(started.port, "POST", "/run", {
      body: JSON.stringify(
        jobBody({
          jobId: "prober",
          model: { provider: "anthropic", token: "k-prober-0123456789", id: "prober" },
          ...base,
        }),
      ),
    });
    const view = await settled(started.port, "prober");
    releaseHeld();
    expect(view.state).toBe("succeeded");
    const show = (file: string) => git(["--git-dir", bare, "show", `castellan/prober:${file}`], temp.path);
    expect(await show("other-checkout.txt")).not.toContain("# app");
    expect(await show("other-checkout.txt")).not.toMatch(/exit 0\n$/);
    expect(await show("secrets.txt")).not.toContain("repo-secret-in-a-file");
    expect(await show("secrets.txt")).not.toMatch(/exit 0\n$/);
    expect(await show("token.txt")).not.toContain(testToken);
    expect(await show("token.txt")).not.toMatch(/exit 0\n$/);
    // Its own PID namespace: the server is not even visible, let alone its environment.
    expect(await show("processes.txt")).not.toContain("vitest");
    expect(await show("environ.txt")).not.toMatch(/exit 0\n$/);
  }, 180_000);
});
