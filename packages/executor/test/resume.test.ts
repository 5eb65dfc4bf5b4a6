// A job whose server is killed outright mid-pass, after a checkpoint, resumes on replay to a
// new server over the same data directory: the work branch is cloned from the remote (its
// checkpointed commit kept), the resumed pass is told so, the proof's pre tree is still the
// base commit, and the PR that is already open is found and refreshed from the briefing with
// its report region kept.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scriptedModel } from "@castellan/models/testing";
import { afterEach, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { reportEnd, reportStart } from "../src/sentinels/report-region.js";
import { fixtureToken, type GithubFixture, startGithubFixture } from "./github-fixture.ts";
import { command, sampleRepository } from "./sample-project.ts";
import { git, jobBody, send, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-resume-");
const child = fileURLToPath(new URL("./fixtures/executor-child.ts", import.meta.url));
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Starts the child server; resolves with it and its port. */
function startChild(directory: string): Promise<{ process: ChildProcess; port: number }> {
  const started = spawn(
    process.execPath,
    [child, join(directory, "data"), join(directory, "transcripts"), join(directory, "sandbox-status.json"), "200"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  cleanups.push(() => {
    if (started.exitCode === null) started.kill("SIGKILL");
  });
  return new Promise((resolve, reject) => {
    let text = "";
    let errors = "";
    started.stderr?.on("data", (chunk: Buffer) => {
      errors += chunk.toString("utf8");
    });
    started.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const port = /listening (\d+)/.exec(text)?.[1];
      if (port) resolve({ process: started, port: Number(port) });
    });
    started.once("exit", (code) => reject(new Error(`the child server exited ${code}: ${errors}`)));
  });
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describeNeeding(osSandboxPrograms, "a job resumed after its server was killed", () => {
  it("clones the checkpointed work branch, proves against the base commit and refreshes the open PR", async () => {
    const github: GithubFixture = await startGithubFixture();
    cleanups.push(() => github.close());
    const bare = await sampleRepository(temp.path);
    const baseSha = (await git(["rev-parse", "main"], bare)).trim();
    const existing = github.seed({
      head: "castellan/job-resume",
      title: "Fix add()",
      body: `Opened earlier.\n\n${reportStart}\nthe backend's report\n${reportEnd}\n`,
    });
    const body = jobBody({
      jobId: "job-resume",
      repo: { url: `file://${bare}`, baseBranch: "main", token: fixtureToken },
      reproduction: { check: "node --test" },
      pullRequest: {
        host: "github",
        repository: github.repository,
        apiURL: github.apiURL,
        title: "Fix add()",
        description: "The body's description.",
      },
    });
    const directory = join(temp.path, "server");
    const first = await startChild(directory);
    expect((await send(first.port, "POST", "/run", { body: JSON.stringify(body) })).status).toBe(202);
    // The agent's commit is checkpointed while its pass still runs; then the server dies outright.
    const published = await until(
      () => git(["log", "--format=%s", "castellan/job-resume"], bare).catch(() => ""),
      (log) => log.startsWith("Fix add"),
    );
    expect(published.split("\n")[0]).toBe("Fix add");
    first.process.kill("SIGKILL");
    await new Promise((resolve) => first.process.once("exit", resolve));

    const model = scriptedModel([
      command("printf 'Resumed: add() adds again.\\n' > .castellan-pr-description.md"),
      { text: "Finished after the restart." },
    ]);
    const { server, port } = await startServer({
      allowFileRemotes: true,
      modelFactory: () => model,
      dataDirectory: join(directory, "data"),
      transcriptRoot: join(directory, "transcripts"),
    });
    cleanups.push(() => server.close());
    expect((await send(port, "GET", "/jobs/job-resume")).json.state).toBe("interrupted");
    expect((await send(port, "POST", "/run", { body: JSON.stringify(body) })).status).toBe(202);
    const view = await until(
      async () => (await send(port, "GET", "/jobs/job-resume")).json,
      (current) => !["queued", "running"].includes(current.state),
      150_000,
    );
    expect(view.state, JSON.stringify(view.error)).toBe("succeeded");
    expect(view).toMatchObject({ pass: "resume-1", resumedFrom: { count: 1 } });
    expect(model.requests[0]?.system).toContain("has resumed");
    // The proof's pre tree is the base commit, not the resumed pass's start (which has the fix).
    const [attempt] = view.result.reproduction.attempts;
    expect(attempt.preSha).toBe(baseSha);
    expect(view.result.reproduction.outcome).toBe("proven");
    expect(await git(["log", "--format=%s", "castellan/job-resume"], bare)).toBe("Fix add\nthe sample project\n");
    // The open PR is found, not created; the briefing refreshes it and the report region stays.
    expect(github.requestsTo("create")).toHaveLength(0);
    expect(view.result).toMatchObject({
      prUrl: existing.html_url,
      prDescriptionSource: "agent",
      pullRequest: { created: false, refreshed: true },
    });
    expect(github.pulls[0]?.body).toContain("Resumed: add() adds again.");
    expect(github.pulls[0]?.body).toContain("the backend's report");
  }, 300_000);
});
