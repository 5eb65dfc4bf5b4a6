// The job registry over real files: a job's states and its record in job.json (0600, atomic,
// without credentials), replays (attach, settled, resumed with resumedFrom after an
// interruption; a refreshed token is the same job; another body or route is job-conflict), the
// FIFO queue under maxConcurrentJobs and its bound, cancelling queued and running jobs, listing,
// and reopening a directory a stopped server left (queued and running become interrupted,
// secrets and checkouts removed).
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  createJobRegistry,
  type JobOutcome,
  type JobRegistry,
  type JobRegistryOptions,
  type JobWork,
  jobIdentity,
} from "../src/index.js";
import { jobCredentials } from "./job-credentials.js";
import { tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-registry-");
const registries: JobRegistry[] = [];
afterEach(async () => {
  for (const registry of registries.splice(0)) await registry.close();
});

/** A job runner the test drives: each job waits until the test settles it. */
function heldRunner() {
  const started: JobWork[] = [];
  const settles = new Map<string, (outcome: JobOutcome) => void>();
  const run = (work: JobWork) =>
    new Promise<JobOutcome>((resolve) => {
      started.push(work);
      settles.set(work.jobId, resolve);
      if (work.signal.aborted) resolve({ error: { code: "aborted", message: "stopped" } });
      work.signal.addEventListener("abort", () => resolve({ error: { code: "aborted", message: "stopped" } }));
    });
  return {
    run,
    started,
    settle: (jobId: string, outcome: JobOutcome) => settles.get(jobId)?.(outcome),
  };
}

async function open(overrides: Partial<JobRegistryOptions> = {}) {
  const runner = heldRunner();
  const logs: unknown[] = [];
  const registry = createJobRegistry({
    credentials: jobCredentials,
    directory: join(temp.path, "jobs"),
    maxConcurrentJobs: 2,
    run: runner.run,
    log: (entry) => logs.push(entry),
    ...overrides,
  });
  await registry.open();
  registries.push(registry);
  return { registry, runner, logs };
}

const body = (jobId: string, token = "model-token-1", extra: Record<string, unknown> = {}) => ({
  jobId,
  model: { provider: "anthropic", token, id: "m" },
  systemPrompt: "Fix it.",
  repo: { url: "https://127.0.0.1:9/r.git", baseBranch: "main", token: "repo-token-1" },
  ...extra,
});

async function until(check: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 2_000 && !check(); attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
}

describe("the job registry", () => {
  it("runs a job to its end and keeps its record without credentials, privately", async () => {
    const { registry, runner } = await open();
    // A free slot: the job runs at once.
    expect(await registry.submit("run", "coder", body("a"))).toEqual({ jobId: "a", state: "running", started: true });
    await until(() => runner.started.length === 1);
    expect(runner.started[0]?.body).toMatchObject({ model: { token: "model-token-1" } });
    await runner.started[0]?.update({
      phase: "agent",
      pass: "initial",
      progress: { completed: 1, inProgress: 1, total: 3 },
    });
    expect(registry.view("a")).toMatchObject({ state: "running", phase: "agent", progress: { total: 3 } });
    runner.settle("a", { result: { branch: "castellan/a", summary: "done" } });
    await until(() => registry.view("a").state === "succeeded");
    const file = join(temp.path, "jobs", "a", "job.json");
    // The record in memory changes at once; its file is replaced by a write that follows.
    let saved = await readFile(file, "utf8");
    for (let attempt = 0; attempt < 400 && JSON.parse(saved).state !== "succeeded"; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      saved = await readFile(file, "utf8");
    }
    expect(saved).not.toContain("model-token-1");
    expect(saved).not.toContain("repo-token-1");
    expect(JSON.parse(saved)).toMatchObject({
      state: "succeeded",
      result: { branch: "castellan/a" },
      identity: jobIdentity("run", body("a"), jobCredentials.coder),
    });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(temp.path, "jobs", "a"))).mode & 0o777).toBe(0o700);
    expect(registry.view("a")).not.toHaveProperty("body");
  });

  it("attaches a replay to the job, a refreshed token included; another body or route is job-conflict", async () => {
    const { registry, runner } = await open();
    await registry.submit("run", "coder", body("b"));
    await until(() => runner.started.length === 1);
    expect(await registry.submit("run", "coder", body("b", "model-token-2"))).toEqual({
      jobId: "b",
      state: "running",
      started: false,
    });
    await expect(
      registry.submit("run", "coder", body("b", "model-token-1", { systemPrompt: "Other." })),
    ).rejects.toMatchObject({
      code: "executor_job_conflict",
      status: 409,
    });
    await expect(registry.submit("bootstrap", "bootstrap", body("b"))).rejects.toMatchObject({
      code: "executor_job_conflict",
    });
    runner.settle("b", { error: { code: "watchdog-inactivity", message: "quiet" } });
    await until(() => registry.view("b").state === "failed");
    expect(await registry.submit("run", "coder", body("b"))).toEqual({ jobId: "b", state: "failed", started: false });
    expect(runner.started).toHaveLength(1);
    expect(registry.view("b").error).toEqual({ code: "watchdog-inactivity", message: "quiet", callMetrics: [] });
  });

  it("runs at most maxConcurrentJobs at once, the rest first in first out, and bounds the queue", async () => {
    const { registry, runner } = await open({ maxQueued: 2 });
    for (const id of ["q1", "q2", "q3", "q4"]) await registry.submit("run", "coder", body(id));
    await until(() => runner.started.length === 2);
    expect(registry.view("q3").state).toBe("queued");
    await expect(registry.submit("run", "coder", body("q5"))).rejects.toMatchObject({
      code: "executor_queue_full",
      status: 503,
    });
    runner.settle("q2", { result: null });
    await until(() => runner.started.length === 3);
    expect(runner.started.map((work) => work.jobId)).toEqual(["q1", "q2", "q3"]);
    expect(registry.list({ limit: 10 }).map((job) => job.jobId)).toHaveLength(4);
    expect(registry.list({ state: "queued", limit: 10 }).map((job) => job.jobId)).toEqual(["q4"]);
    expect(registry.list({ limit: 1 })).toHaveLength(1);
  });

  it("cancels a queued job at once and a running one through its signal; a settled job is unchanged", async () => {
    const { registry, runner } = await open({ maxConcurrentJobs: 1 });
    await registry.submit("run", "coder", body("c1"));
    await registry.submit("run", "coder", body("c2"));
    await until(() => runner.started.length === 1);
    expect(await registry.cancel("c2")).toEqual({ state: "cancelled", changed: true });
    expect(registry.view("c2").state).toBe("cancelled");
    expect(await registry.cancel("c1")).toEqual({ state: "cancelled", changed: true });
    expect(runner.started[0]?.signal.aborted).toBe(true);
    await until(() => registry.view("c1").state === "cancelled");
    // The cancelled queued job never ran.
    expect(runner.started.map((work) => work.jobId)).toEqual(["c1"]);
    expect(await registry.cancel("c1")).toEqual({ state: "cancelled", changed: false });
    expect(() => registry.view("nope")).toThrow(expect.objectContaining({ code: "executor_job_not_found" }));
  });

  it("reopens a stopped server's directory: queued and running jobs are interrupted, secrets and checkouts gone, and a replay resumes", async () => {
    const directory = join(temp.path, "jobs");
    const first = createJobRegistry({
      credentials: jobCredentials,
      directory,
      maxConcurrentJobs: 1,
      run: heldRunner().run,
      log: () => undefined,
    });
    await first.open();
    await first.submit("run", "coder", body("r1"));
    await first.submit("run", "coder", body("r2"));
    await until(() => first.view("r1").state === "running");
    // As a killed process leaves it: records on disk, a secret and a checkout beside them.
    await mkdir(join(directory, "r1", "secrets"), { recursive: true });
    await writeFile(join(directory, "r1", "secrets", "repo-token"), "repo-token-1");
    await mkdir(join(directory, "r1", "checkout"), { recursive: true });
    await writeFile(join(directory, "not-a-job"), "ignored");

    const { registry, runner } = await open();
    expect(registry.view("r1")).toMatchObject({ state: "interrupted" });
    expect(registry.view("r2")).toMatchObject({ state: "interrupted" });
    await expect(stat(join(directory, "r1", "secrets"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(stat(join(directory, "r1", "checkout"))).rejects.toMatchObject({ code: "ENOENT" });

    expect(await registry.submit("run", "coder", body("r1", "fresh-token"))).toMatchObject({ started: true });
    await until(() => runner.started.length === 1);
    expect(runner.started[0]?.resumedFrom).toEqual({ count: 1, lastPhase: null });
    expect(runner.started[0]?.body).toMatchObject({ model: { token: "fresh-token" } });
    expect(registry.view("r1")).toMatchObject({ state: "running", resumedFrom: { count: 1 } });
    expect(registry.view("r1")).not.toHaveProperty("endedAt");
    await first.close();
  });

  it("close interrupts running and queued jobs and refuses new submissions", async () => {
    const { registry, runner } = await open({ maxConcurrentJobs: 1 });
    await registry.submit("run", "coder", body("s1"));
    await registry.submit("run", "coder", body("s2"));
    await until(() => runner.started.length === 1);
    await registry.close();
    expect(registry.view("s1").state).toBe("interrupted");
    expect(registry.view("s2").state).toBe("interrupted");
    await expect(registry.submit("run", "coder", body("s3"))).rejects.toMatchObject({ code: "executor_shutting_down" });
  });
});
