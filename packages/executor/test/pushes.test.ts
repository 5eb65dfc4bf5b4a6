// The work branch's checkpointed, lease-guarded pushes. BranchPusher on a plain local bare
// repository: a pass's first push plain, later ones leased against what the pass itself
// published, a published tip skipped, the pass's own amend and reset landing, a second writer's
// commit refusing the push (branch-contended), a rewrite below the pass's start tip refused
// (history-rewritten), and a push asked for while one runs publishing the newer tip. Then the
// real server, real git and the real sandbox against `git http-backend` over loopback, pushes
// counted in its request log: checkpoints mid-pass and none while nothing is new, the amend
// landing on its lease with no tracking ref, a second writer failing the job, a rewrite below
// a repair pass's start tip failing it, the final push waiting for a running checkpoint, and
// the last checkpoint of a job cancelled mid-pass.
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { ModelBinding, ModelRequest } from "@castellan/harness";
import { type ScriptedStep, type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { spawnDetached } from "@castellan/node-runner";
import { afterEach, describe, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import {
  createRedactor,
  type ExecutorServerOptions,
  type GitContext,
  JobFailure,
  type ModelFactory,
  PublishRepository,
  prepareHooksPath,
  type SpawnProcess,
} from "../src/index.js";
import { BranchPusher } from "../src/push/branch-pusher.js";
import { hostCheckoutGit } from "./checkout-git-support.ts";
import { type GitHttpRequest, startGitHttpServer } from "./git-http.ts";
import { bareRepository, git, jobBody, send, settled, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-pushes-");
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const repoToken = "repo-token-pushes-0123456789-abcdef";
/** One model turn: a command in the sandbox (cwd the checkout root). */
const command = (text: string): ScriptedStep => ({ toolCalls: [{ name: "exec_command", input: { command: text } }] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns something other than undefined/false; fails after `timeoutMs`. */
async function waitFor<Value>(
  what: string,
  check: () => Value | undefined | false | Promise<Value | undefined | false>,
  timeoutMs = 60_000,
): Promise<Value> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await sleep(50);
  }
}

/** A promise the test resolves; `reached` says something arrived at it. */
class Gate {
  private arrive!: () => void;
  private open!: () => void;
  readonly reached = new Promise<void>((resolve) => {
    this.arrive = resolve;
  });
  readonly released = new Promise<void>((resolve) => {
    this.open = resolve;
  });
  arrived(): void {
    this.arrive();
  }
  release(): void {
    this.open();
  }
}

/**
 * Waits for a gate to be reached, within a generous bound; a timeout says what the job was doing
 * (its view and the server's last log lines), since a gate that never comes has no other trace.
 */
async function reached(gate: Gate, what: string, job?: { explain(): Promise<string> }): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      gate.reached,
      new Promise<never>((_, reject) => {
        timer = setTimeout(async () => {
          const detail = job ? await job.explain().catch((error: unknown) => String(error)) : "";
          reject(new Error(`Timed out waiting for ${what}.${detail ? ` ${detail}` : ""}`));
        }, 90_000);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A scripted model whose calls can be held: a `Gate` in the script holds the next model call
 * (so the tool call before it has completed) until the test releases it or the job is stopped.
 * One script across every pass of the job.
 */
function gatedScript(script: readonly (ScriptedStepSource | Gate)[]) {
  const steps: ScriptedStepSource[] = [];
  const gates = new Map<number, Gate>();
  for (const entry of script) {
    if (entry instanceof Gate) gates.set(steps.length + 1, entry);
    else steps.push(entry);
  }
  cleanups.push(() => {
    for (const gate of gates.values()) gate.release();
  });
  const model = scriptedModel(steps);
  /** Every request, as it arrived (a held one included). */
  const requests: ModelRequest[] = [];
  let calls = 0;
  const factory: ModelFactory = () => {
    const binding: ModelBinding = {
      specifier: model.specifier,
      async *stream(request, options) {
        requests.push(structuredClone(request));
        const gate = gates.get(++calls);
        if (gate) {
          gate.arrived();
          await Promise.race([
            gate.released,
            new Promise<void>((resolve) => {
              if (options.signal.aborted) resolve();
              else options.signal.addEventListener("abort", () => resolve(), { once: true });
            }),
          ]);
        }
        yield* model.stream(request, options);
      },
    };
    return binding;
  };
  return { factory, model, requests };
}

/** The git verb of a recorded argv (past the `-c` settings). */
const verbOf = (args: readonly string[]) => args.find((arg, index, all) => arg !== "-c" && all[index - 1] !== "-c");

/** What `ref` names in the bare repository, or undefined when it does not exist. */
async function tipOf(bare: string, ref: string): Promise<string | undefined> {
  try {
    return (await git(["--git-dir", bare, "rev-parse", "--verify", "-q", `${ref}^{commit}`], dirname(bare))).trim();
  } catch {
    return undefined;
  }
}

/** A commit's subject in the bare repository. */
async function subjectOf(bare: string, sha: string): Promise<string> {
  return (await git(["--git-dir", bare, "log", "-1", "--format=%s", sha], dirname(bare))).trim();
}

describe("BranchPusher on a local bare repository", () => {
  const branch = "castellan/unit";

  async function setup(options: { hold?: string } = {}) {
    const bare = await bareRepository(temp.path);
    const checkout = join(temp.path, "checkout");
    await git(["clone", "-q", "--single-branch", "--branch", "main", bare, checkout], temp.path);
    await git(["checkout", "-q", "-b", branch], checkout);
    const base = (await git(["rev-parse", "HEAD"], checkout)).trim();
    const hooksPath = join(temp.path, "hooks");
    await prepareHooksPath(hooksPath);
    const spawned: (readonly string[])[] = [];
    const spawn: SpawnProcess = (executable, args, spawnOptions) => {
      spawned.push(args);
      // A held push waits for the hold file before git starts.
      if (options.hold && verbOf(args) === "push") {
        return spawnDetached(
          "/bin/sh",
          ["-c", 'while [ ! -e "$0" ]; do sleep 0.05; done; exec git "$@"', options.hold, ...args],
          spawnOptions,
        );
      }
      return spawnDetached(executable, args, spawnOptions);
    };
    const context: GitContext = {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: temp.path,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
      },
      hooksPath,
      redactor: createRedactor(),
      signal: new AbortController().signal,
      spawn,
    };
    const commit = async (message: string, directory = checkout) => {
      await git(["commit", "-q", "--allow-empty", "-m", message], directory);
      return (await git(["rev-parse", "HEAD"], directory)).trim();
    };
    const pushArgs = () => spawned.filter((args) => verbOf(args) === "push");
    const remoteTip = () => tipOf(bare, `refs/heads/${branch}`);
    const pusher = async (remoteTipOption?: string) => {
      const publish = new PublishRepository({
        directory: join(temp.path, "publish.git"),
        exchange: join(temp.path, "exchange"),
        staging: join(temp.path, "staging"),
        git: context,
      });
      await publish.seedFromPristine(checkout, [base]);
      return new BranchPusher({
        checkout: hostCheckoutGit(checkout, context),
        publish,
        url: bare,
        branch,
        auth: {},
        ...(remoteTipOption ? { remoteTip: remoteTipOption } : {}),
      });
    };
    return { bare, checkout, base, commit, pushArgs, remoteTip, pusher };
  }

  /** The failure a push was refused with. */
  async function refusal(push: Promise<unknown>): Promise<JobFailure> {
    const error = await push.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(JobFailure);
    return error as JobFailure;
  }

  it("pushes a pass's first commit plain, later ones leased on what it pushed, and skips a published tip", async () => {
    const { bare, checkout, base, commit, pushArgs, remoteTip, pusher: make } = await setup();
    const pusher = await make();
    pusher.passStarted(base);
    const one = await commit("one");
    expect(await pusher.push()).toEqual({ pushed: true, sha: one, mode: "plain" });
    expect(await remoteTip()).toBe(one);
    expect(pushArgs()).toHaveLength(1);
    expect(pushArgs()[0]?.slice(4)).toEqual(["push", "--no-verify", bare, `${one}:refs/heads/${branch}`]);

    // Nothing new: no push at all.
    expect(await pusher.push()).toEqual({ pushed: false, sha: one });
    expect(pushArgs()).toHaveLength(1);

    const two = await commit("two");
    expect(await pusher.push()).toEqual({ pushed: true, sha: two, mode: "lease" });
    expect(pushArgs()[1]?.slice(4)).toEqual([
      "push",
      "--no-verify",
      `--force-with-lease=refs/heads/${branch}:${one}`,
      bare,
      `${two}:refs/heads/${branch}`,
    ]);
    expect(pusher.publishedSha).toBe(two);
    expect(pusher.pushes.map(({ sha, mode }) => ({ sha, mode }))).toEqual([
      { sha: one, mode: "plain" },
      { sha: two, mode: "lease" },
    ]);
    // The single-branch clone has no tracking ref of the work branch: the lease never read one.
    expect(await git(["for-each-ref", "--format=%(refname)", "refs/remotes"], checkout)).not.toContain(branch);
  });

  it("lands the pass's own amend and reset on the lease, and refuses a second writer's commit as branch-contended", async () => {
    const { bare, checkout, base, commit, remoteTip, pusher: make } = await setup();
    const pusher = await make();
    pusher.passStarted(base);
    const one = await commit("one");
    await pusher.push();
    await git(["commit", "-q", "--amend", "--allow-empty", "-m", "one, amended"], checkout);
    const amended = (await git(["rev-parse", "HEAD"], checkout)).trim();
    expect(await pusher.push()).toEqual({ pushed: true, sha: amended, mode: "lease" });
    expect(await remoteTip()).toBe(amended);
    expect(amended).not.toBe(one);

    // Back to where the pass started and something else: the pass's own commits, so it lands.
    await git(["reset", "-q", "--hard", base], checkout);
    const other = await commit("other");
    expect(await pusher.push()).toEqual({ pushed: true, sha: other, mode: "lease" });
    expect(await remoteTip()).toBe(other);

    // A second writer.
    const writer = join(temp.path, "writer");
    await git(["clone", "-q", "--branch", branch, bare, writer], temp.path);
    const theirs = await commit("theirs", writer);
    await git(["push", "-q", "origin", branch], writer);
    await commit("three");
    const failure = await refusal(pusher.push());
    expect(failure.code).toBe("branch-contended");
    expect(failure.evidence).toMatchObject({ push: { branch, expected: other } });
    expect(await remoteTip()).toBe(theirs);
    expect(pusher.publishedSha).toBe(other);
  });

  it("refuses a rewrite below the pass's start tip as history-rewritten, on the pass's first push and after one", async () => {
    const { checkout, base, commit, pushArgs, remoteTip, pusher: make } = await setup();
    const pusher = await make();
    pusher.passStarted(base);
    const one = await commit("one");
    await pusher.push();

    // A new pass starts on the published commit and rewrites below it before its first push.
    pusher.passStarted(one);
    await git(["reset", "-q", "--hard", base], checkout);
    await commit("other");
    let failure = await refusal(pusher.push());
    expect(failure.code).toBe("history-rewritten");
    expect(failure.evidence).toMatchObject({ push: { branch, passStart: one } });
    expect(await remoteTip()).toBe(one);
    expect(pushArgs().at(-1)).not.toContainEqual(expect.stringContaining("--force-with-lease"));

    // The same pass, after a push of its own: the lease is withheld, so git refuses the rewrite.
    await git(["reset", "-q", "--hard", one], checkout);
    const two = await commit("two");
    expect(await pusher.push()).toEqual({ pushed: true, sha: two, mode: "plain" });
    await git(["reset", "-q", "--hard", base], checkout);
    await commit("other again");
    failure = await refusal(pusher.push());
    expect(failure.code).toBe("history-rewritten");
    expect(await remoteTip()).toBe(two);
    expect(pushArgs().at(-1)).not.toContainEqual(expect.stringContaining("--force-with-lease"));
    // The amend of a commit from before the pass is a rewrite below its start too.
    await git(["reset", "-q", "--hard", two], checkout);
    pusher.passStarted(two);
    await git(["commit", "-q", "--amend", "--allow-empty", "-m", "two, amended"], checkout);
    expect((await refusal(pusher.push())).code).toBe("history-rewritten");
    expect(await remoteTip()).toBe(two);
  });

  it("checkpoints nothing before the job's first commit, while the final push still publishes the branch", async () => {
    const { base, commit, pushArgs, remoteTip, pusher: make } = await setup();
    const pusher = await make();
    pusher.passStarted(base);
    expect(await pusher.checkpoint()).toEqual({ pushed: false, sha: base });
    expect(pushArgs()).toHaveLength(0);
    expect(await pusher.push()).toEqual({ pushed: true, sha: base, mode: "plain" });
    expect(await remoteTip()).toBe(base);
    const one = await commit("one");
    expect(await pusher.checkpoint()).toEqual({ pushed: true, sha: one, mode: "lease" });
    // A second pass starts on a commit the first pass made and no checkpoint caught: that one is pushed.
    const other = await make();
    other.passStarted(one);
    const two = await commit("two");
    other.passStarted(two);
    expect(await other.checkpoint()).toEqual({ pushed: true, sha: two, mode: "plain" });
    expect(await remoteTip()).toBe(two);
  });

  it("takes a resumed job's remote tip as published", async () => {
    const { bare, checkout, commit, pushArgs, pusher: make } = await setup();
    const earlier = await commit("earlier run");
    await git(["push", "-q", "origin", `HEAD:refs/heads/${branch}`], checkout);
    const pusher = await make(earlier);
    pusher.passStarted(earlier);
    expect(await pusher.push()).toEqual({ pushed: false, sha: earlier });
    expect(pushArgs()).toHaveLength(0);
    const next = await commit("next");
    expect(await pusher.push()).toEqual({ pushed: true, sha: next, mode: "plain" });
    expect(await tipOf(bare, `refs/heads/${branch}`)).toBe(next);
  });

  it("publishes the newer tip when a push is asked for while another runs", async () => {
    const hold = join(temp.path, "release-push");
    const { base, commit, pushArgs, remoteTip, pusher: make } = await setup({ hold });
    const pusher = await make();
    pusher.passStarted(base);
    const one = await commit("one");
    const first = pusher.push();
    await waitFor("the first push to start", () => pushArgs().length === 1);
    const two = await commit("two");
    const second = pusher.push();
    await writeFile(hold, "");
    expect(await first).toEqual({ pushed: true, sha: one, mode: "plain" });
    expect(await second).toEqual({ pushed: true, sha: two, mode: "lease" });
    expect(await remoteTip()).toBe(two);
  });
});

describeNeeding(osSandboxPrograms, "checkpointed, lease-guarded pushes of a job", () => {
  /** A job against a loopback `git http-backend`, every server git recorded. */
  async function startJob(
    jobId: string,
    script: readonly (ScriptedStepSource | Gate)[],
    options: {
      readonly body?: Record<string, unknown>;
      readonly server?: ExecutorServerOptions;
      readonly hold?: (request: GitHttpRequest) => Promise<void> | void;
    } = {},
  ) {
    const bare = await bareRepository(temp.path);
    const remote = await startGitHttpServer(dirname(bare), repoToken, options.hold ? { hold: options.hold } : {});
    cleanups.push(() => remote.close());
    const spawned: (readonly string[])[] = [];
    const recording: SpawnProcess = (executable, args, spawnOptions) => {
      spawned.push(args);
      return spawnDetached(executable, args, spawnOptions);
    };
    const { factory, model, requests } = gatedScript(script);
    const started = await startServer({
      modelFactory: factory,
      spawn: recording,
      checkpointIntervalMs: 200,
      ...options.server,
    });
    cleanups.push(() => started.server.close());
    const branch = `castellan/${jobId}`;
    const posted = await send(started.port, "POST", "/run", {
      body: JSON.stringify(
        jobBody({
          jobId,
          repo: { url: remote.url("origin.git"), baseBranch: "main", token: repoToken },
          ...options.body,
        }),
      ),
    });
    expect(posted.status).toBe(202);
    const base = (await git(["--git-dir", bare, "rev-parse", "main"], temp.path)).trim();
    return {
      bare,
      jobId,
      dataDirectory: started.server.options.dataDirectory,
      close: () => started.server.close(),
      url: remote.url("origin.git"),
      base,
      branch,
      model,
      requests,
      port: started.port,
      logged: started.logged,
      view: async () => (await send(started.port, "GET", `/jobs/${jobId}`)).json,
      /** The job's view, the server's last log lines and the gits it ran, for a timeout's message. */
      explain: async () =>
        JSON.stringify({
          view: (await send(started.port, "GET", `/jobs/${jobId}`)).json,
          log: started.logged.slice(-30),
          gits: spawned.slice(-10).map((args) => verbOf(args)),
          modelCalls: requests.length,
        }),
      settled: () => settled(started.port, jobId),
      remoteTip: () => tipOf(bare, `refs/heads/${branch}`),
      /** The pushes that reached the remote: its receive-pack POSTs. */
      receivePacks: () =>
        remote.requests.filter((request) => request.method === "POST" && request.path.endsWith("/git-receive-pack"))
          .length,
      pushArgs: () => spawned.filter((args) => verbOf(args) === "push").map((args) => args.slice(4)),
    };
  }

  const commitFile = (name: string) =>
    command(`echo ${name} > ${name}.txt && git add ${name}.txt && git commit -qm ${name}`);

  it("checkpoints a commit while the pass runs, and pushes nothing on ticks whose tip is published", async () => {
    const held = new Gate();
    const job = await startJob("job-tick", [commitFile("one"), held, { text: "Done." }]);
    await reached(held, "the agent's commit", job);
    const tip = await waitFor("the checkpoint", () => job.remoteTip());
    expect(await subjectOf(job.bare, tip)).toBe("one");
    expect(await job.view()).toMatchObject({ state: "running", phase: "agent" });
    expect(job.receivePacks()).toBe(1);

    // Several intervals with nothing new (each tick reads HEAD in the sandbox): no push.
    const since = Date.now();
    await waitFor("several checkpoint ticks", () => Date.now() - since >= 5 * 200, 60_000);
    expect(job.receivePacks()).toBe(1);
    expect(await job.remoteTip()).toBe(tip);

    held.release();
    const view = await job.settled();
    expect(view.state, JSON.stringify(view.error)).toBe("succeeded");
    job.model.assertComplete();
    expect(view.result.headSha).toBe(tip);
    // The final push found the tip published.
    expect(job.receivePacks()).toBe(1);
    expect(job.pushArgs()).toEqual([["push", "--no-verify", job.url, `${tip}:refs/heads/${job.branch}`]]);
  }, 150_000);

  it("lands the agent's amend and reset on a lease armed with no tracking ref", async () => {
    const afterCommit = new Gate();
    const afterAmend = new Gate();
    const afterReset = new Gate();
    let base = "";
    const job = await startJob("job-amend", [
      commitFile("one"),
      afterCommit,
      command("git commit -q --amend -m 'one, amended' && git for-each-ref --format='ref=%(refname)'"),
      afterAmend,
      () =>
        command(`git reset -q --hard ${base} && echo other > other.txt && git add other.txt && git commit -qm other`),
      afterReset,
      { text: "Done." },
    ]);
    base = job.base;
    await reached(afterCommit, "the agent's commit", job);
    const one = await waitFor("the first checkpoint", () => job.remoteTip());
    expect(await subjectOf(job.bare, one)).toBe("one");
    afterCommit.release();

    await reached(afterAmend, "the agent's amend", job);
    const amended = await waitFor("the amend's checkpoint", async () => {
      const tip = await job.remoteTip();
      return tip !== one && tip;
    });
    expect(await subjectOf(job.bare, amended)).toBe("one, amended");
    expect((await git(["--git-dir", job.bare, "rev-parse", `${amended}^`], temp.path)).trim()).toBe(job.base);
    // What the checkout's refs were after the first checkpoint: no tracking ref of the work branch.
    const listing = JSON.stringify(job.requests[2]);
    expect(listing).toContain(`ref=refs/heads/${job.branch}`);
    expect(listing).not.toContain(`refs/remotes/origin/${job.branch}`);
    afterAmend.release();

    await reached(afterReset, "the agent's reset", job);
    // (A tick may catch HEAD between the reset and the commit and publish the base on the lease
    // first: the pass's own rewrite as well.)
    const other = await waitFor("the reset's checkpoint", async () => {
      const tip = await job.remoteTip();
      return tip !== undefined && tip !== amended && tip !== job.base && tip;
    });
    expect(await subjectOf(job.bare, other)).toBe("other");
    afterReset.release();

    const view = await job.settled();
    expect(view.state, JSON.stringify(view.error)).toBe("succeeded");
    job.model.assertComplete();
    expect(view.result.headSha).toBe(other);
    expect(await job.remoteTip()).toBe(other);
    const ref = `refs/heads/${job.branch}`;
    const pushes = job.pushArgs();
    expect(pushes.slice(0, 2)).toEqual([
      ["push", "--no-verify", job.url, `${one}:${ref}`],
      ["push", "--no-verify", `--force-with-lease=${ref}:${one}`, job.url, `${amended}:${ref}`],
    ]);
    const between = pushes.length === 4 ? [job.base] : [];
    expect(pushes.slice(2)).toEqual(
      [...between, other].map((sha, index, all) => [
        "push",
        "--no-verify",
        `--force-with-lease=${ref}:${index === 0 ? amended : all[index - 1]}`,
        job.url,
        `${sha}:${ref}`,
      ]),
    );
    expect(job.receivePacks()).toBe(pushes.length);
  }, 150_000);

  it("fails the job branch-contended when a second writer pushed to the branch mid-run", async () => {
    const afterCommit = new Gate();
    const never = new Gate();
    const job = await startJob("job-contended", [
      commitFile("one"),
      afterCommit,
      commitFile("two"),
      never,
      { text: "Not reached." },
    ]);
    await reached(afterCommit, "the agent's commit", job);
    const one = await waitFor("the first checkpoint", () => job.remoteTip());

    const writer = join(temp.path, "writer");
    await git(["clone", "-q", "--branch", job.branch, job.bare, writer], temp.path);
    await writeFile(join(writer, "theirs.txt"), "theirs\n");
    await git(["add", "theirs.txt"], writer);
    await git(["commit", "-q", "-m", "theirs"], writer);
    await git(["push", "-q", "origin", job.branch], writer);
    const theirs = (await git(["rev-parse", "HEAD"], writer)).trim();
    afterCommit.release();

    const view = await job.settled();
    expect(view).toMatchObject({
      state: "failed",
      phase: "agent",
      error: { code: "branch-contended", evidence: { push: { branch: job.branch, expected: one } } },
    });
    expect(await job.remoteTip()).toBe(theirs);
    expect(job.pushArgs().at(-1)).toContain(`--force-with-lease=refs/heads/${job.branch}:${one}`);
  }, 150_000);

  it("fails the job history-rewritten when a repair pass rewrites below its start tip, after a push and before one", async () => {
    // The validation check never passes, so a repair pass follows the first.
    const validationChecks = { commands: [{ name: "marker", command: "test -f never-there.txt" }], maxRepairPasses: 1 };
    for (const pushedFirst of [true, false]) {
      const jobId = pushedFirst ? "job-rewrite-pushed" : "job-rewrite-first";
      const afterCommit = new Gate();
      const inRepair = new Gate();
      const never = new Gate();
      let base = "";
      const rewrite = () =>
        command(`git reset -q --hard ${base} && echo other > other.txt && git add other.txt && git commit -qm other`);
      const job = await startJob(
        jobId,
        [
          commitFile("one"),
          afterCommit,
          { text: "First pass done." },
          ...(pushedFirst ? [commitFile("two"), inRepair] : []),
          rewrite,
          never,
          { text: "Not reached." },
        ],
        { body: { validationChecks } },
      );
      base = job.base;
      await reached(afterCommit, "the agent's commit", job);
      const one = await waitFor("the first checkpoint", () => job.remoteTip());
      afterCommit.release();
      let published = one;
      if (pushedFirst) {
        await reached(inRepair, "the repair pass's commit", job);
        published = await waitFor("the repair pass's checkpoint", async () => {
          const tip = await job.remoteTip();
          return tip !== one && tip;
        });
        expect(await subjectOf(job.bare, published)).toBe("two");
        expect(job.pushArgs().at(-1)).not.toContainEqual(expect.stringContaining("--force-with-lease"));
        inRepair.release();
      }

      const view = await job.settled();
      expect(view, jobId).toMatchObject({
        state: "failed",
        phase: "agent",
        pass: "initial-repair-1",
        error: { code: "history-rewritten", evidence: { push: { branch: job.branch, passStart: one } } },
      });
      expect(await job.remoteTip()).toBe(published);
      // Refused without a lease: git's own non-fast-forward check.
      expect(job.pushArgs().at(-1)).not.toContainEqual(expect.stringContaining("--force-with-lease"));
    }
  }, 240_000);

  it("makes the final push wait for a running checkpoint and publish the last commit", async () => {
    const afterCommit = new Gate();
    const pushHeld = new Gate();
    let holds = 0;
    const job = await startJob("job-final", [commitFile("one"), afterCommit, commitFile("two"), { text: "Done." }], {
      hold: (request) => {
        if (request.method !== "POST" || !request.path.endsWith("/git-receive-pack") || holds++ > 0) return;
        pushHeld.arrived();
        return pushHeld.released;
      },
    });
    cleanups.push(() => pushHeld.release());
    await reached(afterCommit, "the agent's commit", job);
    await reached(pushHeld, "the checkpoint's push", job);
    afterCommit.release();
    // The pass ends (commit two) and the final push is asked for while the checkpoint still runs.
    await waitFor("the push phase", async () => (await job.view()).phase === "push");
    pushHeld.release();

    const view = await job.settled();
    expect(view.state, JSON.stringify(view.error)).toBe("succeeded");
    job.model.assertComplete();
    const tip = await job.remoteTip();
    expect(tip).toBeDefined();
    expect(await subjectOf(job.bare, tip as string)).toBe("two");
    expect(view.result.headSha).toBe(tip);
    expect(job.receivePacks()).toBe(2);
  }, 150_000);

  it("publishes a cancelled job's commit in its last checkpoint", async () => {
    const afterCommit = new Gate();
    // No checkpoint tick in this test: only the last checkpoint pushes.
    const job = await startJob("job-cancelled", [commitFile("one"), afterCommit, { text: "Not reached." }], {
      server: { checkpointIntervalMs: 600_000 },
    });
    await reached(afterCommit, "the agent's commit", job);
    expect(job.receivePacks()).toBe(0);
    const cancel = await send(job.port, "POST", "/jobs/job-cancelled/cancel");
    expect(cancel.status).toBe(202);

    const view = await job.settled();
    expect(view.state).toBe("cancelled");
    const tip = await job.remoteTip();
    expect(
      tip,
      JSON.stringify(job.logged.filter((entry: any) => String(entry.kind).startsWith("job-final"))),
    ).toBeDefined();
    expect(await subjectOf(job.bare, tip as string)).toBe("one");
    expect(job.receivePacks()).toBe(1);
    expect(job.logged).toContainEqual(
      expect.objectContaining({ kind: "job-final-checkpoint", pushed: true, sha: tip }),
    );
  }, 150_000);

  for (const how of ["cancelled", "stopped with the server (SIGTERM)"] as const) {
    it(`salvages a job ${how} mid-pass before its last checkpoint, so uncommitted work is pushed, and says so`, async () => {
      const afterWrite = new Gate();
      const job = await startJob(
        `job-stop-${how === "cancelled" ? "cancel" : "term"}`,
        [
          commitFile("one"),
          command("echo unsaved > unsaved.txt && echo more >> one.txt"),
          afterWrite,
          { text: "Not reached." },
        ],
        // Its own data directory, kept after the close (the server's temporary one goes with it).
        { server: { checkpointIntervalMs: 600_000, dataDirectory: join(temp.path, `data-${how.length}`) } },
      );
      await reached(afterWrite, "the agent's uncommitted work", job);
      let record: any;
      if (how === "cancelled") {
        expect((await send(job.port, "POST", `/jobs/${job.jobId}/cancel`)).status).toBe(202);
        record = await job.settled();
        expect(record.state).toBe("cancelled");
      } else {
        // What the bin's SIGTERM handler does: close the server, which stops its jobs.
        await job.close();
        record = JSON.parse(await readFile(join(job.dataDirectory, "jobs", job.jobId, "job.json"), "utf8"));
        expect(record.state).toBe("interrupted");
      }
      const tip = (await job.remoteTip()) as string;
      expect(await subjectOf(job.bare, tip)).toContain("castellan salvage");
      const tree = await git(["--git-dir", job.bare, "ls-tree", "-r", "--name-only", tip], temp.path);
      expect(tree).toContain("unsaved.txt");
      expect(await git(["--git-dir", job.bare, "show", `${tip}:one.txt`], temp.path)).toContain("more");
      const stopped = record.error?.evidence?.stopped;
      expect(stopped?.salvage?.committed, JSON.stringify(record)).toEqual(
        expect.arrayContaining(["one.txt", "unsaved.txt"]),
      );
      expect(stopped?.checkpoint).toEqual({ pushed: true, sha: tip });
    }, 150_000);
  }
});
