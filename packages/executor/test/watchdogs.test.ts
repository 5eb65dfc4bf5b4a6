// The watchdogs and the guard on real jobs, with millisecond settings: a model that never
// answers (inactivity), one that talks without calling a tool (tool silence, and 0 disabling
// it), the ceiling, a cold start folded into a later failure without a kill; and the guard with
// noEditCallLimit 3: a read loop (guard-non-action), commands that write a file by heredoc
// (satisfied), commands that write nothing (guard-no-edit with what was seen), and a probe that
// cannot tell because .git went away (a warning, no kill).
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { ModelBinding, ModelStreamEvent } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { afterEach, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import type { ExecutorServer, ExecutorServerOptions } from "../src/index.js";
import { bareRepository, git, jobBody, send, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-watch-");
const servers: ExecutorServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** A model that waits for its abort (never answers). */
const silent: ModelBinding = {
  specifier: "test/silent",
  async *stream(_request, { signal }): AsyncGenerator<ModelStreamEvent> {
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    yield { type: "error", error: new Error("stopped") };
  },
};

/** A model that streams text until aborted and never calls a tool. */
const chatty: ModelBinding = {
  specifier: "test/chatty",
  async *stream(_request, { signal }): AsyncGenerator<ModelStreamEvent> {
    while (!signal.aborted) {
      yield { type: "text-delta", text: "thinking out loud... " };
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    yield { type: "error", error: new Error("stopped") };
  },
};

/** A model that answers only after `ms`, with a failure. */
const late = (ms: number): ModelBinding => ({
  specifier: "test/late",
  async *stream(): AsyncGenerator<ModelStreamEvent> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    yield { type: "error", error: new Error("the provider gave up") };
  },
});

async function runJob(model: ModelBinding, knobs: Partial<ExecutorServerOptions>, jobId = "watched") {
  const bare = await bareRepository(temp.path);
  const started = await startServer({ allowFileRemotes: true, modelFactory: () => model, ...knobs });
  servers.push(started.server);
  const body = jobBody({ jobId, repo: { url: `file://${bare}`, baseBranch: "main" } });
  expect((await send(started.port, "POST", "/run", { body: JSON.stringify(body) })).status).toBe(202);
  const deadline = Date.now() + 90_000;
  for (;;) {
    const view = (await send(started.port, "GET", `/jobs/${jobId}`)).json;
    if (!["queued", "running"].includes(view.state) || Date.now() > deadline) return { view, ...started, bare };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const commands = (...lines: string[]): ScriptedStepSource[] =>
  lines.map((command) => ({ toolCalls: [{ name: "exec_command", input: { command } }] }));

describeNeeding(osSandboxPrograms, "the watchdogs and the guard on jobs", () => {
  it("fails a job whose model never answers with watchdog-inactivity and its evidence", async () => {
    const { view } = await runJob(silent, { jobInactivityMs: 400 });
    expect(view).toMatchObject({
      state: "failed",
      phase: "agent",
      error: { code: "watchdog-inactivity", evidence: { toolCalls: 0, lastToolCalls: [] } },
    });
    expect(view.error.evidence.elapsedMs).toBeGreaterThanOrEqual(400);
  }, 60_000);

  it("fails a model that talks without calling a tool with watchdog-tool-silence; 0 disables it", async () => {
    const { view } = await runJob(chatty, { jobToolSilenceMs: 500, jobInactivityMs: 30_000 });
    expect(view.error.code).toBe("watchdog-tool-silence");
    const disabled = await runJob(
      chatty,
      { jobToolSilenceMs: 0, jobInactivityMs: 30_000, jobMaxDurationMs: 1_500 },
      "quiet-ok",
    );
    expect(disabled.view.error.code).toBe("watchdog-max-duration");
  }, 60_000);

  it("fails at the ceiling whatever the phase", async () => {
    const { view } = await runJob(silent, { jobMaxDurationMs: 700, jobInactivityMs: 30_000, jobToolSilenceMs: 0 });
    expect(view.error.code).toBe("watchdog-max-duration");
  }, 60_000);

  it("records a cold start without stopping the job and folds it into the later failure", async () => {
    const { view } = await runJob(late(600), { jobColdStartMs: 150, jobInactivityMs: 30_000 });
    expect(view).toMatchObject({
      state: "failed",
      diagnostics: { coldStart: { afterMs: 150 } },
      error: { code: "agent-failed", evidence: { coldStart: { afterMs: 150 } } },
    });
  }, 60_000);

  const guarded = { noEditCallLimit: 3, maxConsecutiveNonActionCalls: 6 };

  it("stops a read loop with guard-non-action", async () => {
    const reads = Array.from({ length: 8 }, () => ({
      toolCalls: [{ name: "read_workspace_file", input: { path: "README.md" } }],
    }));
    const { view } = await runJob(scriptedModel([...reads, { text: "never" }]), guarded);
    expect(view.error).toMatchObject({
      code: "guard-non-action",
      evidence: { lastToolCalls: Array(5).fill("read_workspace_file"), guard: { consecutiveNonActionCalls: 6 } },
    });
  }, 60_000);

  it("lets commands that write a file by heredoc satisfy the no-edit bound", async () => {
    const steps = [
      ...commands("cat > made.txt <<'EOF'\nmade by a command\nEOF", "true", "true"),
      { text: "Wrote made.txt." },
    ];
    const { view, bare } = await runJob(scriptedModel(steps), guarded);
    expect(view).toMatchObject({ state: "succeeded", result: { summary: "Wrote made.txt." } });
    expect(await git(["--git-dir", bare, "show", "castellan/watched:made.txt"], temp.path)).toBe("made by a command\n");
  }, 60_000);

  it("stops commands that change nothing with guard-no-edit, quoting the tree", async () => {
    const steps = [...commands("true", "ls", "true", "true", "true"), { text: "never" }];
    const { view } = await runJob(scriptedModel(steps), guarded);
    expect(view.error).toMatchObject({
      code: "guard-no-edit",
      evidence: { tree: { status: "clean", head: expect.stringMatching(/^[0-9a-f]{40}$/) } },
    });
  }, 60_000);

  it("warns and re-arms when the probe cannot tell (.git removed mid-pass), never killing the job for it", async () => {
    let checkout = "";
    const steps: ScriptedStepSource[] = [
      ...commands("true", "true"),
      () => {
        // The host side takes the repository away before the third command (the sandbox would refuse it).
        rmSync(join(checkout, ".git"), { recursive: true, force: true });
        return { toolCalls: [{ name: "exec_command", input: { command: "true" } }] };
      },
      { text: "done" },
    ];
    const logged: unknown[] = [];
    const started = runJob(scriptedModel(steps), { ...guarded, log: (entry) => logged.push(entry) });
    // The checkout's place is known from the data directory the server was given.
    checkout = await (async () => {
      for (;;) {
        const candidate = servers[0]?.options.dataDirectory;
        if (candidate) return join(candidate, "jobs", "watched", "checkout");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const { view } = await started;
    expect(view.error.code).not.toBe("guard-no-edit");
    expect(logged).toContainEqual(expect.objectContaining({ kind: "job-probe-failed", jobId: "watched" }));
  }, 60_000);
});
