// The dependency install and the job's package registries: writeJobNpmrc on its own (seeded
// from the user's file, which is never written, read by a real npm against a loopback
// registry); runDependencyInstall in a command Session (the heartbeat that keeps the inactivity
// watchdog quiet, a refused spawn); and through the real server (the notes of a failure, a
// missing command and a cut-off install at the clamped timeout, the output's scrubbed 8 KiB
// tail, what the install created kept out of the agent's `git add -A`, and the job's own
// `.npmrc` as npm in the sandbox sees it).
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import type { ModelRequest } from "@castellan/harness";
import type { ScriptedStepSource } from "@castellan/models/testing";
import { afterEach, describe, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { withJobCommands } from "../src/commands/job-commands.js";
import { jobEnvironmentPolicy } from "../src/config/job-environment.js";
import type { ExecutorServerOptions } from "../src/index.js";
import {
  type InstallOutcome,
  installNote,
  installTailBytes,
  runDependencyInstall,
} from "../src/install/dependency-install.js";
import { userNpmrcPath, writeJobNpmrc } from "../src/install/registry-auth.js";
import { createJobWatch } from "../src/watch/job-watch.js";
import { sandboxedCheckoutGit } from "./checkout-git-support.ts";
import { runSampleJob, type SampleJobRun } from "./sample-job.ts";
import { command, fixAndCommit } from "./sample-project.ts";
import { git, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-install-");
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const registryToken = "npm-registry-token-0123456789abcdef";
const noScrub = (text: string) => text;

/** Runs a program to its end with exactly `env`; resolves with its exit code and output. */
function runProgram(
  file: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env: Readonly<Record<string, string>> },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: options.cwd, env: options.env, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) || 1 : 0, stdout, stderr }),
    );
  });
}

/** The host's npm, with `userconfig` the given file and nothing else of this machine's npm config. */
async function hostNpm(args: readonly string[], userconfig: string) {
  const scratch = join(temp.path, "npm-scratch");
  await mkdir(scratch, { recursive: true });
  await writeFile(join(scratch, "globalrc"), "");
  return runProgram("npm", args, {
    cwd: scratch,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: scratch,
      npm_config_userconfig: userconfig,
      npm_config_globalconfig: join(scratch, "globalrc"),
      npm_config_cache: join(scratch, "cache"),
      npm_config_update_notifier: "false",
      npm_config_fund: "false",
      npm_config_audit: "false",
    },
  });
}

/** A loopback npm registry serving one package, recording each request's path and Authorization. */
async function fakeRegistry(): Promise<{ url: string; seen: { path: string; authorization?: string }[] }> {
  const seen: { path: string; authorization?: string }[] = [];
  let base = "";
  const server: Server = createServer((request, response) => {
    const headers: IncomingHttpHeaders = request.headers;
    seen.push({ path: request.url ?? "", ...(headers.authorization ? { authorization: headers.authorization } : {}) });
    if (!(request.url ?? "").includes("widget")) {
      response.writeHead(404, { "content-type": "application/json" }).end("{}");
      return;
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        name: "@acme/widget",
        "dist-tags": { latest: "1.2.3" },
        versions: {
          "1.2.3": {
            name: "@acme/widget",
            version: "1.2.3",
            dist: { tarball: `${base}@acme/widget/-/widget-1.2.3.tgz`, shasum: "0".repeat(40) },
          },
        },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/npm/`;
  return { url: base, seen };
}

describe("writeJobNpmrc", () => {
  it("writes the job's .npmrc (0600) seeded from the user's file, which it never writes", async () => {
    const home = join(temp.path, "home");
    await mkdir(home);
    const user = join(temp.path, "user.npmrc");
    const userText = "fund=false\n@acme:registry=http://user-registry.invalid/\n";
    await writeFile(user, userText, { mode: 0o644 });
    const before = await stat(user);
    const path = await writeJobNpmrc({
      home,
      userConfig: user,
      registries: [
        { registry: "http://127.0.0.1:9/npm", scope: "@acme", token: registryToken },
        { registry: "https://registry.example.com/", token: "default-registry-token-0123" },
      ],
    });
    expect(path).toBe(join(home, ".npmrc"));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const written = await readFile(path, "utf8");
    expect(written.startsWith(userText)).toBe(true);
    expect(written).toContain("@acme:registry=http://127.0.0.1:9/npm/\n");
    expect(written).toContain(`//127.0.0.1:9/npm/:_authToken=${registryToken}\n`);
    expect(written).toContain("registry=https://registry.example.com/\n");
    expect(written).toContain("//registry.example.com/:_authToken=default-registry-token-0123\n");
    // The user's file: the same bytes, mode and time.
    expect(await readFile(user, "utf8")).toBe(userText);
    const after = await stat(user);
    expect([after.mode, after.mtimeMs, after.size]).toEqual([before.mode, before.mtimeMs, before.size]);

    // Without a user file there is only the job's part.
    const bare = join(temp.path, "bare-home");
    await mkdir(bare);
    const alone = await readFile(
      await writeJobNpmrc({
        home: bare,
        userConfig: join(temp.path, "absent.npmrc"),
        registries: [{ registry: "http://127.0.0.1:9/npm/", scope: "@acme", token: registryToken }],
      }),
      "utf8",
    );
    expect(alone).toBe(
      `; Castellan: this job's package registries\n@acme:registry=http://127.0.0.1:9/npm/\n//127.0.0.1:9/npm/:_authToken=${registryToken}\n`,
    );
  });

  it("names the user's file by npm_config_userconfig, then NPM_CONFIG_USERCONFIG, then ~/.npmrc", () => {
    expect(userNpmrcPath({ npm_config_userconfig: "/a", NPM_CONFIG_USERCONFIG: "/b" })).toBe("/a");
    expect(userNpmrcPath({ NPM_CONFIG_USERCONFIG: "/b" })).toBe("/b");
    expect(userNpmrcPath({ npm_config_userconfig: "" })).toBe(join(homedir(), ".npmrc"));
    expect(userNpmrcPath({})).toBe(join(homedir(), ".npmrc"));
  });

  it("is read by npm: the job's registry wins over the user's, even when the user's file ends in an ini section", async () => {
    const home = join(temp.path, "home");
    await mkdir(home);
    const user = join(temp.path, "user.npmrc");
    const userText = "@acme:registry=http://user-registry.invalid/\nfund=false\n[section]\nkey=value\n";
    await writeFile(user, userText);
    const path = await writeJobNpmrc({
      home,
      userConfig: user,
      registries: [{ registry: "http://127.0.0.1:9/npm/", scope: "@acme", token: registryToken }],
    });
    const read = await hostNpm(["config", "get", "@acme:registry"], path);
    expect(read.stdout.trim()).toBe("http://127.0.0.1:9/npm/");
    // What the user's file set outside the section still holds.
    expect((await hostNpm(["config", "get", "fund"], path)).stdout.trim()).toBe("false");
    expect(await readFile(user, "utf8")).toBe(userText);
  }, 120_000);

  it("hands npm each token whole, whatever characters it has, and nothing more", async () => {
    const registry = await fakeRegistry();
    const home = join(temp.path, "home");
    await mkdir(home);
    for (const token of [registryToken, "tok;en#with=odd chars", "line\nregistry=http://injected.invalid/"]) {
      registry.seen.splice(0);
      const path = await writeJobNpmrc({
        home,
        userConfig: join(temp.path, "absent.npmrc"),
        registries: [{ registry: registry.url, scope: "@acme", token }],
      });
      if (token.includes("\n")) {
        // A line break never starts a line of its own in the file: no setting is injected.
        expect((await hostNpm(["config", "get", "registry"], path)).stdout.trim()).toBe("https://registry.npmjs.org/");
        continue;
      }
      const viewed = await hostNpm(["view", "@acme/widget", "version"], path);
      expect(viewed.stdout.trim(), viewed.stderr).toBe("1.2.3");
      expect(registry.seen[0]?.path).toMatch(/^\/npm\/@acme(%2f|\/)widget$/i);
      expect(registry.seen[0]?.authorization).toBe(`Bearer ${token}`);
    }
  }, 120_000);
});

describe("installNote", () => {
  const outcome = (patch: Partial<InstallOutcome>): InstallOutcome => ({
    status: "succeeded",
    exitCode: 0,
    durationMs: 12,
    outputTail: "",
    truncated: false,
    excluded: [],
    ...patch,
  });

  it("says how the install ended, what it excluded and its output, cut or whole", () => {
    expect(installNote("npm ci", undefined)).toBe("");
    const ok = installNote("npm ci", outcome({ outputTail: "added 3 packages\n", excluded: ["vendor/"] }));
    expect(ok).toContain("The server ran `npm ci` at the checkout root before this pass; it succeeded in 12 ms.");
    expect(ok).not.toContain("Dependencies may be missing");
    expect(ok).toContain("What it created is excluded from git: vendor/.");
    expect(ok).toContain("Its output:\n```text\nadded 3 packages\n```");
    const failed = installNote("npm ci", outcome({ status: "failed", exitCode: 3, outputTail: "x", truncated: true }));
    expect(failed).toContain("it failed with exit code 3 in 12 ms.");
    expect(failed).toContain("Dependencies may be missing");
    expect(failed).toContain("The last 8 KiB of its output:");
    expect(installNote("x", outcome({ status: "timed-out", exitCode: 124 }))).toContain(
      "was stopped at its time limit (exit code 124)",
    );
    expect(installNote("x", outcome({ status: "not-started", exitCode: 127 }))).toContain(
      "could not be started (exit code 127)",
    );
    // Backticks in the command and fences in the output cannot end the note's quoting.
    const quoted = installNote("echo `date`", outcome({ outputTail: "```\nmore\n" }));
    expect(quoted).toContain("The server ran `echo 'date'`");
    expect(quoted).toContain("'''\nmore");
    // The command is quoted scrubbed, as its output is.
    const scrub = (text: string) => text.replace("secret-0123456789", "[redacted]");
    expect(installNote("npm ci --token=secret-0123456789", outcome({}), scrub)).toContain(
      "The server ran `npm ci --token=[redacted]`",
    );
    const many = installNote("x", outcome({ excluded: Array.from({ length: 25 }, (_, index) => `f${index}`) }));
    expect(many).toContain("f19, ...");
    expect(many).not.toContain("f20");
  });
});

/** A git checkout in the test's directory, with one commit. */
async function gitCheckout(): Promise<string> {
  const checkout = join(temp.path, "checkout");
  await mkdir(checkout);
  await git(["init", "-q"], checkout);
  await writeFile(join(checkout, "README.md"), "# x\n");
  await git(["add", "README.md"], checkout);
  await git(["commit", "-qm", "first"], checkout);
  return checkout;
}

/** The server's git on the checkout, in the sandbox; closed after the test. */
const checkoutGit = (checkout: string, home: string) => {
  const git_ = sandboxedCheckoutGit(checkout, home);
  cleanups.push(() => git_.dispose());
  return git_;
};

describeNeeding(osSandboxPrograms, "the dependency install in a command Session", () => {
  it("feeds the inactivity watchdog with its heartbeat: 50 ms beats keep a 200 ms watchdog quiet through a 1 s install", async () => {
    const checkout = await gitCheckout();
    const home = join(temp.path, "home");
    await mkdir(home);
    const git_ = checkoutGit(checkout, home);
    const limits = { jobMaxDurationMs: 120_000, jobInactivityMs: 200, jobToolSilenceMs: 0, jobColdStartMs: 0 };
    const signal = new AbortController().signal;
    await withJobCommands({ root: checkout, environment: jobEnvironmentPolicy(home), signal }, async (runtime) => {
      const install = (watch: ReturnType<typeof createJobWatch>, heartbeat: boolean) =>
        runDependencyInstall({
          runtime,
          command: "sleep 1",
          git: git_,
          timeoutMs: 60_000,
          heartbeatMs: heartbeat ? 50 : 0,
          onHeartbeat: heartbeat ? () => watch.activity() : () => undefined,
          scrub: noScrub,
          signal,
        });
      const watched = createJobWatch(limits);
      cleanups.push(() => watched.dispose());
      const beating = await install(watched, true);
      expect(watched.failure).toBeUndefined();
      watched.dispose();
      expect(beating).toMatchObject({ status: "succeeded", exitCode: 0 });
      expect(beating.durationMs).toBeGreaterThanOrEqual(900);

      // The control: the same install without a heartbeat trips it.
      const control = createJobWatch(limits);
      cleanups.push(() => control.dispose());
      const silent = await install(control, false);
      expect(silent.status).toBe("succeeded");
      expect(control.failure?.code).toBe("watchdog-inactivity");
      expect(control.signal.aborted).toBe(true);
    });
  }, 60_000);

  it("reads a command that cannot be started as not-started (127), with what refused it", async () => {
    const checkout = await gitCheckout();
    const home = join(temp.path, "home");
    await mkdir(home);
    // The Session's workspace root is gone by the time the command is started.
    const root = join(temp.path, "gone");
    await mkdir(root);
    const signal = new AbortController().signal;
    const outcome = await withJobCommands(
      { root, environment: jobEnvironmentPolicy(home), signal },
      async (runtime) => {
        await rm(root, { recursive: true });
        return runDependencyInstall({
          runtime,
          command: "true",
          git: checkoutGit(checkout, home),
          timeoutMs: 60_000,
          heartbeatMs: 0,
          onHeartbeat: () => undefined,
          scrub: noScrub,
          signal,
        });
      },
    );
    expect(outcome).toMatchObject({ status: "not-started", exitCode: 127, excluded: [] });
    expect(outcome.outputTail).toContain("the command could not be started");
    const note = installNote("true", outcome);
    expect(note).toContain("could not be started (exit code 127)");
    expect(note).toContain("Dependencies may be missing");
  }, 60_000);

  it("excludes exactly the paths it created, names with glob characters and spaces too", async () => {
    const checkout = await gitCheckout();
    const home = join(temp.path, "home");
    await mkdir(home);
    await writeFile(join(checkout, "before.txt"), "untracked before the install\n");
    const signal = new AbortController().signal;
    const outcome = await withJobCommands(
      { root: checkout, environment: jobEnvironmentPolicy(home), signal },
      (runtime) =>
        runDependencyInstall({
          runtime,
          command:
            "mkdir -p vendor/lib && echo a > vendor/lib/a.js && echo log > install.log && echo g > 'we*rd[1]?.txt' && echo s > 'trailing ' && echo h > '#hash' && echo b > '!bang' && echo n > \"$(printf 'new\\nline')\"",
          git: checkoutGit(checkout, home),
          timeoutMs: 60_000,
          heartbeatMs: 0,
          onHeartbeat: () => undefined,
          scrub: noScrub,
          signal,
        }),
    );
    expect(outcome.status).toBe("succeeded");
    expect([...outcome.excluded].sort()).toEqual(
      ["!bang", "#hash", "install.log", "new\nline", "trailing ", "vendor/", "we*rd[1]?.txt"].sort(),
    );
    // What git now leaves out: exactly those, while a file that was there before is still seen.
    await writeFile(join(checkout, "werd1x.txt"), "matches the glob, were it one\n");
    await writeFile(join(checkout, "trailing"), "the name without its space\n");
    const untracked = (await git(["ls-files", "--others", "--exclude-standard"], checkout)).split("\n").filter(Boolean);
    expect(untracked.sort()).toEqual(["before.txt", "trailing", "werd1x.txt"]);
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------
// Through the server.

interface JobRun extends SampleJobRun {
  readonly options: { readonly dependencyInstallTimeoutMs: number };
}

async function runJob(options: {
  readonly steps?: readonly ScriptedStepSource[];
  readonly body: Record<string, unknown>;
  readonly server?: ExecutorServerOptions;
  readonly files?: Readonly<Record<string, string>>;
}): Promise<JobRun> {
  const run = await runSampleJob({
    ...options,
    base: temp.path,
    steps: options.steps ?? fixAndCommit(),
    started: (server) => cleanups.push(() => server.close()),
  });
  return { ...run, options: run.server.options };
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describeNeeding(osSandboxPrograms, "the dependency install through a job", () => {
  it("folds a failed install into the pass: its exit code, its last 8 KiB with the body's tokens redacted", async () => {
    const artifactToken = "artifact-upload-token-0123456789abcdef";
    // The model's token straight in the command, the artifact token from the command's environment.
    const install =
      "echo 'start-of-output' && i=0; while [ $i -lt 400 ]; do echo \"filler line $i .........................\"; i=$((i+1)); done; " +
      'echo "model token model-secret-token-value"; echo "artifact $ARTIFACT_UPLOAD_TOKEN" >&2; echo broken-install >&2; exit 3';
    const run = await runJob({
      body: {
        dependencyInstall: { command: install },
        artifactUpload: { url: "http://127.0.0.1:9/upload", token: artifactToken },
      },
    });
    expect(run.view.state, JSON.stringify(run.view.error)).toBe("succeeded");
    const result = run.view.result.install;
    expect(result).toMatchObject({ status: "failed", exitCode: 3, truncated: true, excluded: [] });
    expect(Buffer.byteLength(result.outputTail)).toBeLessThanOrEqual(installTailBytes);
    expect(Buffer.byteLength(result.outputTail)).toBeGreaterThan(installTailBytes - 100);
    expect(result.outputTail).not.toContain("start-of-output");
    expect(result.outputTail).toContain("model token [redacted]\n");
    expect(result.outputTail).toContain("artifact [redacted]\n");
    expect(result.outputTail.endsWith("broken-install\n")).toBe(true);
    const system = (run.requests[0] as ModelRequest).system;
    expect(system).toContain("## Dependency install");
    expect(system).toContain("failed with exit code 3");
    expect(system).toContain("Dependencies may be missing");
    expect(system).toContain("The last 8 KiB of its output:");
    expect(system).toContain("artifact [redacted]");
    expect(system).toContain("broken-install");
    // Neither token anywhere: not in what the model was sent (the command quoted included), the view, the events or the log.
    for (const text of [
      JSON.stringify(run.requests),
      JSON.stringify(run.view),
      JSON.stringify(run.events),
      JSON.stringify(run.logged),
    ]) {
      expect(text).not.toContain(artifactToken);
      expect(text).not.toContain("model-secret-token-value");
    }
    expect(run.logged).toContainEqual(
      expect.objectContaining({ kind: "job-install-ended", status: "failed", exitCode: 3 }),
    );
  }, 180_000);

  it("reports a command that is not found as a failed install with exit code 127 and the shell's message", async () => {
    const run = await runJob({ body: { dependencyInstall: { command: "no-such-installer-xyz --frozen" } } });
    expect(run.view.state, JSON.stringify(run.view.error)).toBe("succeeded");
    const install = run.view.result.install;
    expect(install).toMatchObject({ status: "failed", exitCode: 127, truncated: false });
    expect(install.outputTail).toMatch(/no-such-installer-xyz: (command )?not found/);
    const system = (run.requests[0] as ModelRequest).system;
    expect(system).toContain("`no-such-installer-xyz --frozen`");
    expect(system).toContain("failed with exit code 127");
    expect(system).toMatch(/no-such-installer-xyz: (command )?not found/);
    // The job went on: the agent's fix is on the branch.
    expect(await git(["log", "--format=%s", run.branch], run.bare)).toBe("Fix add\nthe sample project\n");
  }, 180_000);

  it("cuts an install off at the clamped timeout, a third of the job's ceiling, as a timed-out install (124)", async () => {
    const jobMaxDurationMs = 60_000;
    const run = await runJob({
      body: { dependencyInstall: { command: "echo waiting; sleep 120" } },
      // Asked for far more than the job could spare: clamped to a third of its ceiling.
      server: { jobMaxDurationMs, dependencyInstallTimeoutMs: 900_000, env: { DEPENDENCY_INSTALL_TIMEOUT_MS: "5" } },
    });
    expect(run.options.dependencyInstallTimeoutMs).toBe(20_000);
    expect(run.view.state, JSON.stringify(run.view.error)).toBe("succeeded");
    const install = run.view.result.install;
    expect(install).toMatchObject({ status: "timed-out", exitCode: 124 });
    expect(install.durationMs).toBeGreaterThanOrEqual(20_000);
    expect(install.durationMs).toBeLessThan(60_000);
    expect(install.outputTail).toContain("waiting");
    expect(install.outputTail).toContain("(timed out after 20000 ms)");
    // The install's process group was ended with it.
    const processes = await runProgram("ps", ["-eo", "pid=,ppid=,pgid=,stat=,lstart=,args="], {
      cwd: temp.path,
      env: { PATH: "/usr/bin:/bin" },
    });
    const left = processes.stdout.split("\n").filter((line) => line.trim().endsWith(" sleep 120"));
    expect(left, `${processes.stdout}\n${JSON.stringify(run.view.result.install)}`).toEqual([]);
    const system = (run.requests[0] as ModelRequest).system;
    expect(system).toContain("was stopped at its time limit (exit code 124)");
    expect(system).toContain("Dependencies may be missing");
  }, 180_000);

  it("clamps the install timeout from the environment too, and leaves a smaller one as it is", async () => {
    const fromEnv = await startServer({
      env: { JOB_MAX_DURATION_MS: "30000", DEPENDENCY_INSTALL_TIMEOUT_MS: "600000" },
    });
    cleanups.push(() => fromEnv.server.close());
    expect(fromEnv.server.options.dependencyInstallTimeoutMs).toBe(10_000);
    const smaller = await startServer({ jobMaxDurationMs: 30_000, dependencyInstallTimeoutMs: 4_000 });
    cleanups.push(() => smaller.server.close());
    expect(smaller.server.options.dependencyInstallTimeoutMs).toBe(4_000);
    const derived = await startServer({ jobMaxDurationMs: 30_001 });
    cleanups.push(() => derived.server.close());
    expect(derived.server.options.dependencyInstallTimeoutMs).toBe(10_000);
  });

  it("keeps what the install created, a directory and a file at the root, out of the agent's git add -A", async () => {
    const run = await runJob({
      body: {
        dependencyInstall: {
          command:
            "mkdir -p generated/deep && echo built > generated/deep/out.txt && echo cache > install-cache.json && mkdir -p node_modules/x && echo m > node_modules/x/index.js",
        },
      },
      steps: [
        command("git add -A && git status --porcelain --untracked-files=all"),
        ...fixAndCommit().slice(0, 1),
        command("git add -A && git commit -qm 'Fix add'"),
        { text: "Fixed add()." },
      ],
    });
    expect(run.view.state, JSON.stringify(run.view.error)).toBe("succeeded");
    // Ignored by the repository's .gitignore already, node_modules/ is not the install's to exclude.
    expect(run.view.result.install.excluded).toEqual(["generated/", "install-cache.json"]);
    // The agent's own `git add -A` staged none of it.
    const status = JSON.stringify(run.requests[1]?.messages.at(-1));
    expect(status).not.toContain("generated");
    expect(status).not.toContain("install-cache");
    const files = (await git(["ls-tree", "-r", "--name-only", run.branch], run.bare)).split("\n").filter(Boolean);
    expect(files.sort()).toEqual([".gitignore", "math.js", "math.test.js", "package.json"]);
    const system = (run.requests[0] as ModelRequest).system;
    expect(system).toContain("What it created is excluded from git: generated/, install-cache.json.");
  }, 180_000);

  it("gives the job's commands its own .npmrc, which npm reads; the user's is never written and the token is never shown", async () => {
    const registry = "http://127.0.0.1:9/npm/";
    const userConfig = join(temp.path, "user.npmrc");
    const userText = "fund=false\n@acme:registry=http://user-registry.invalid/\n";
    await writeFile(userConfig, userText, { mode: 0o644 });
    const realNpmrc = join(homedir(), ".npmrc");
    const realBefore = await readFile(realNpmrc).catch(() => undefined);
    const run = await runJob({
      body: {
        dependencyInstall: {
          command:
            'npm config get @acme:registry && npm config get userconfig && npm config get fund && stat -c %a "$npm_config_userconfig"',
        },
        packageRegistries: [{ registry, scope: "@acme", token: registryToken }],
      },
      server: { npmUserConfig: userConfig },
      steps: [
        command('npm config get @acme:registry; printf %s "$(cat "$npm_config_userconfig")" | sha256sum'),
        ...fixAndCommit(),
      ],
    });
    expect(run.view.state, JSON.stringify(run.view.error)).toBe("succeeded");
    const home = join(run.directory, "data", "jobs", "job-1", "home");
    const install = run.view.result.install;
    expect(install.status, install.outputTail).toBe("succeeded");
    expect(install.outputTail.split("\n").slice(0, 4)).toEqual([registry, join(home, ".npmrc"), "false", "600"]);
    // The agent's commands read the same file: the job's registry, and the token within it (hashed here).
    const expected = `${userText.trimEnd()}\n\n; Castellan: this job's package registries\n@acme:registry=${registry}\n//127.0.0.1:9/npm/:_authToken=${registryToken}`;
    const agentSaw = JSON.stringify(run.requests[1]?.messages);
    expect(agentSaw).toContain(registry);
    expect(agentSaw).toContain(sha256(expected));
    // The user's own files: the same bytes as before, and the job's is gone with the job.
    expect(await readFile(userConfig, "utf8")).toBe(userText);
    expect(await readFile(realNpmrc).catch(() => undefined)).toEqual(realBefore);
    await expect(stat(join(home, ".npmrc"))).rejects.toMatchObject({ code: "ENOENT" });
    for (const text of [
      JSON.stringify(run.requests),
      JSON.stringify(run.view),
      JSON.stringify(run.events),
      JSON.stringify(run.logged),
    ]) {
      expect(text).not.toContain(registryToken);
    }
  }, 180_000);
});
