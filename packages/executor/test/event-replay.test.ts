// A job's events after its end, over the registry and real files: a settled job's stream
// replays the ring with the ids the live stream used, after Last-Event-ID only what followed,
// and ends with job-end carrying the result; the ids hold across a reopened registry, a job
// cut off by a killed server gets its end appended once (stable afterwards), a job saved
// before events were kept gets one synthesized end, a resumed run numbers on, a queued job
// that is cancelled ends its stream, and the event file stays bounded and 0600. The log has a
// job-start line, one job-phase line per phase change and a job-end line with the state, the
// error code and the duration.
import { EventEmitter } from "node:events";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import type { RunEvent } from "@castellan/harness";
import { afterEach, describe, expect, it } from "vitest";
import {
  bufferedJobEvents,
  createJobRegistry,
  JobEventLog,
  JobEventStream,
  type JobOutcome,
  type JobRegistry,
  type JobWork,
  jobIdentity,
} from "../src/index.js";
import { jobCredentials } from "./job-credentials.js";
import { tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-replay-");
const registries: JobRegistry[] = [];
afterEach(async () => {
  for (const registry of registries.splice(0)) await registry.close();
});

interface Seen {
  readonly id: number;
  readonly event: string;
  readonly data: any;
}

/** Just enough of a ServerResponse to follow a stream: the events written and whether it ended. */
function client() {
  const emitter = new EventEmitter();
  const events: Seen[] = [];
  let markEnded: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => {
    markEnded = resolve;
  });
  const fake = Object.assign(emitter, {
    writableLength: 0,
    writeHead: () => fake,
    write: (chunk: string) => {
      const [id, event, data] = chunk.split("\n").map((line) => line.slice(line.indexOf(": ") + 2));
      events.push({ id: Number(id), event: String(event), data: JSON.parse(String(data)) });
      return true;
    },
    end: () => markEnded(),
    destroy: () => markEnded(),
  });
  return { response: fake as unknown as ServerResponse, events, ended };
}

async function follow(registry: JobRegistry, jobId: string, lastEventId?: number): Promise<Seen[]> {
  const reader = client();
  await registry.follow(jobId, reader.response, lastEventId);
  await reader.ended;
  return reader.events;
}

/** A runner the test drives: each job waits until the test settles it. */
function heldRunner() {
  const started: JobWork[] = [];
  const settles = new Map<string, (outcome: JobOutcome) => void>();
  const run = (work: JobWork) =>
    new Promise<JobOutcome>((resolve) => {
      started.push(work);
      settles.set(work.jobId, resolve);
      work.signal.addEventListener("abort", () => resolve({ error: { code: "aborted", message: "stopped" } }));
    });
  return { run, started, settle: (jobId: string, outcome: JobOutcome) => settles.get(jobId)?.(outcome) };
}

async function open(options: { maxConcurrentJobs?: number; now?: () => number } = {}) {
  const runner = heldRunner();
  const logs: { kind: string; [field: string]: unknown }[] = [];
  const registry = createJobRegistry({
    credentials: jobCredentials,
    directory: join(temp.path, "jobs"),
    maxConcurrentJobs: options.maxConcurrentJobs ?? 2,
    run: runner.run,
    log: (entry) => logs.push(entry),
    ...(options.now ? { now: options.now } : {}),
  });
  await registry.open();
  registries.push(registry);
  return { registry, runner, logs };
}

async function closeRegistry(registry: JobRegistry): Promise<void> {
  await registry.close();
  registries.splice(registries.indexOf(registry), 1);
}

const body = (jobId: string) => ({
  jobId,
  model: { provider: "anthropic", token: "model-token-1", id: "m" },
  systemPrompt: "Fix it.",
  repo: { url: "https://127.0.0.1:9/r.git", baseBranch: "main" },
});

async function until(check: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 2_000 && !check(); attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
}

const toolEnd = (index: number) => ({ kind: "tool-end", runId: "r", turn: 1, index }) as unknown as RunEvent;

describe("a job's events after its end", () => {
  it("replays the ring with the live ids, after Last-Event-ID only what followed, ending with job-end and its result; across a reopen", async () => {
    const first = await open();
    await first.registry.submit("run", "coder", body("a"));
    await until(() => first.runner.started.length === 1);
    const live = client();
    await first.registry.follow("a", live.response, undefined);
    const work = first.runner.started[0] as JobWork;
    await work.update({ phase: "agent", pass: "initial" });
    for (let index = 0; index < 3; index++) work.publishRunEvent("initial", toolEnd(index));
    first.runner.settle("a", { result: { branch: "castellan/a", summary: "done" } });
    await live.ended;
    const kinds = live.events.map((event) => event.event);
    // Queued, running, then the agent phase; the run's events; the settled state and the end.
    expect(kinds).toEqual([
      "job-state-changed",
      "job-state-changed",
      "job-state-changed",
      "tool-end",
      "tool-end",
      "tool-end",
      "job-state-changed",
      "job-end",
    ]);
    expect(live.events.map((event) => event.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(live.events.at(-1)?.data).toMatchObject({ state: "succeeded", result: { branch: "castellan/a" } });

    // Settled: the whole ring as the live client saw it, then the stream ends.
    expect(await follow(first.registry, "a")).toEqual(live.events);
    const tail = await follow(first.registry, "a", 5);
    expect(tail).toEqual(live.events.slice(5));
    expect(tail.at(-1)).toMatchObject({ event: "job-end", data: { result: { summary: "done" } } });

    await closeRegistry(first.registry);
    const second = await open();
    expect(await follow(second.registry, "a")).toEqual(live.events);
    expect(await follow(second.registry, "a", 7)).toEqual(live.events.slice(7));
    expect(await follow(second.registry, "a", 8)).toEqual([]);
    expect((await stat(join(temp.path, "jobs", "a", "events.jsonl"))).mode & 0o777).toBe(0o600);
  });

  it("ends a job a killed server left running once, with ids that stay, and a resumed run numbers on", async () => {
    const directory = join(temp.path, "jobs", "cut");
    await mkdir(directory, { recursive: true });
    const record = {
      formatVersion: 1,
      jobId: "cut",
      route: "run",
      kind: "coder",
      identity: jobIdentity("run", body("cut"), jobCredentials.coder),
      state: "running",
      phase: "agent",
      createdAt: new Date(0).toISOString(),
      body: {},
    };
    await writeFile(join(directory, "job.json"), JSON.stringify(record));
    const saved = [1, 2, 3].map((seq) => JSON.stringify({ seq, kind: "tool-end", data: { seq } }));
    // The last line was torn by the kill.
    await writeFile(join(directory, "events.jsonl"), `${saved.join("\n")}\n{"seq":4,"ki`);

    const first = await open();
    const ended = await follow(first.registry, "cut");
    expect(ended.map((event) => [event.id, event.event])).toEqual([
      [1, "tool-end"],
      [2, "tool-end"],
      [3, "tool-end"],
      [4, "job-state-changed"],
      [5, "job-end"],
    ]);
    expect(ended.at(-1)?.data).toEqual({ state: "interrupted" });
    expect(await follow(first.registry, "cut")).toEqual(ended);
    await closeRegistry(first.registry);

    const second = await open();
    expect(await follow(second.registry, "cut")).toEqual(ended);
    // The replay resumes the job: its new run's events come after the earlier end.
    await second.registry.submit("run", "coder", body("cut"));
    await until(() => second.runner.started.length === 1);
    second.runner.settle("cut", { result: { branch: "castellan/cut" } });
    await until(() => second.registry.peek("cut").state === "succeeded");
    const resumed = await follow(second.registry, "cut", 5);
    expect(resumed.map((event) => [event.id, event.event])).toEqual([
      [6, "job-state-changed"],
      [7, "job-state-changed"],
      [8, "job-state-changed"],
      [9, "job-end"],
    ]);
    expect(resumed.map((event) => event.data.state)).toEqual(["queued", "running", "succeeded", "succeeded"]);
  });

  it("gives a job saved without an event file one end carrying its result, the same on every read", async () => {
    const directory = join(temp.path, "jobs", "old");
    await mkdir(directory, { recursive: true });
    await writeFile(
      join(directory, "job.json"),
      JSON.stringify({
        formatVersion: 1,
        jobId: "old",
        route: "run",
        kind: "coder",
        identity: "x",
        state: "succeeded",
        phase: "push",
        createdAt: new Date(0).toISOString(),
        endedAt: new Date(1).toISOString(),
        result: { branch: "castellan/old" },
        body: {},
      }),
    );
    const { registry } = await open();
    const events = await follow(registry, "old");
    expect(events).toEqual([
      { id: 1, event: "job-state-changed", data: { state: "succeeded", phase: "push" } },
      { id: 2, event: "job-end", data: { state: "succeeded", result: { branch: "castellan/old" } } },
    ]);
    expect(await follow(registry, "old")).toEqual(events);
  });

  it("ends the stream of a queued job that is cancelled or left by a stopping server", async () => {
    const { registry } = await open({ maxConcurrentJobs: 1 });
    await registry.submit("run", "coder", body("busy"));
    await registry.submit("run", "coder", body("waiting"));
    await registry.submit("run", "coder", body("left"));
    const waiting = client();
    await registry.follow("waiting", waiting.response, undefined);
    await registry.cancel("waiting");
    await waiting.ended;
    expect(waiting.events.map((event) => [event.event, event.data.state])).toEqual([
      ["job-state-changed", "queued"],
      ["job-state-changed", "cancelled"],
      ["job-end", "cancelled"],
    ]);
    const left = client();
    await registry.follow("left", left.response, undefined);
    await closeRegistry(registry);
    await left.ended;
    expect(left.events.at(-1)).toMatchObject({ event: "job-end", data: { state: "interrupted" } });
  });

  it("logs job-start, a job-phase line per phase change and job-end with the state, the code and the duration", async () => {
    let clock = 1_000;
    const { registry, runner, logs } = await open({ now: () => clock });
    await registry.submit("run", "coder", body("logged"));
    await until(() => runner.started.length === 1);
    const work = runner.started[0] as JobWork;
    await work.update({ phase: "clone" });
    await work.update({ phase: "clone" });
    await work.update({ phase: "agent", pass: "initial" });
    clock += 2_500;
    runner.settle("logged", { error: { code: "watchdog-inactivity", message: "quiet" } });
    await until(() => logs.some((entry) => entry.kind === "job-end"));
    expect(logs).toEqual([
      { kind: "job-start", jobId: "logged", route: "run", jobKind: "coder" },
      { kind: "job-phase", jobId: "logged", phase: "clone", previous: null, pass: null },
      { kind: "job-phase", jobId: "logged", phase: "agent", previous: "clone", pass: "initial" },
      { kind: "job-end", jobId: "logged", state: "failed", code: "watchdog-inactivity", durationMs: 2_500 },
    ]);
  });
});

describe("a job's event file", () => {
  it("keeps the ring across a reopen and stays bounded at about twice the ring", async () => {
    const file = join(temp.path, "events.jsonl");
    const opened = await JobEventLog.open(file, bufferedJobEvents);
    const stream = new JobEventStream({ events: opened.events, sink: opened.log });
    const published = bufferedJobEvents * 2 + 500;
    for (let index = 0; index < published; index++) stream.publish("tool-end", { index });
    await opened.log.flush();
    const lines = (await readFile(file, "utf8")).split("\n").filter(Boolean);
    expect(lines.length).toBeLessThanOrEqual(2 * bufferedJobEvents);
    const again = await JobEventLog.open(file, bufferedJobEvents);
    expect(again.events).toHaveLength(bufferedJobEvents);
    expect(again.events[0]?.seq).toBe(published - bufferedJobEvents + 1);
    expect(again.events.at(-1)).toEqual({ seq: published, kind: "tool-end", data: { index: published - 1 } });
    const next = new JobEventStream({ events: again.events });
    next.publish("job-end", { state: "succeeded" });
    expect(next.last?.seq).toBe(published + 1);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});
