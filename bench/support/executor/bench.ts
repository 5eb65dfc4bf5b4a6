// The executor bench: one server, `jobs` concurrent scripted coding jobs (each cloning a local
// bare repository, `turns` turns of `turnMs` alternating a sandboxed `true` and an edit, then
// commit and push), a poller per job at 4 Hz in a separate process; beside the same pollers on
// the idle server polling one finished job. Poll latency, event-loop delay and the server's RSS
// (this process plus its sandbox worker processes and spawn broker).
import { execFile, fork, spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createExecutorServer, type ExecutorServer } from "@castellan/executor";
import { type Percentiles, percentiles } from "../stats.ts";
import { pacedModel } from "./paced-model.ts";

const exec = promisify(execFile);
const pollerEntry = fileURLToPath(new URL("./poller.ts", import.meta.url));
const floorEntry = fileURLToPath(new URL("./floor-server.ts", import.meta.url));
const token = "bench-token-0123456789abcdef-0123456789";

/** The bench's size. */
export interface ExecutorBenchOptions {
  /** Concurrent jobs (and `maxConcurrentJobs`). Default 50. */
  readonly jobs: number;
  /** Tool turns per job. Default 20. */
  readonly turns: number;
  /** How long each model call takes, ms. Default 100. */
  readonly turnMs: number;
  /** How long the idle pollers poll, ms. Default 10,000. */
  readonly idleMs: number;
  /** The whole bench's bound, ms; past it the server is closed and the bench fails. Default 600,000. */
  readonly limitMs: number;
  readonly progress?: (message: string) => void;
  /** The server's log lines. Default: dropped. */
  readonly log?: (entry: { readonly kind: string; readonly [field: string]: unknown }) => void;
}

export const defaultExecutorBenchOptions = {
  jobs: 50,
  turns: 20,
  turnMs: 100,
  idleMs: 10_000,
  limitMs: 600_000,
} as const;

/** What one run measured. */
export interface ExecutorBenchReport {
  readonly jobs: number;
  readonly turns: number;
  readonly turnMs: number;
  readonly succeeded: number;
  /** The jobs that did not succeed, with their error. */
  readonly failures: readonly {
    readonly jobId: string;
    readonly state: string;
    readonly code?: string;
    readonly message?: string;
  }[];
  /** Wall time from the first submission to the last job's end, ms. */
  readonly loadMs: number;
  readonly idle: Percentiles & { readonly polls: number; readonly errors: number };
  readonly load: Percentiles & { readonly polls: number; readonly errors: number };
  /**
   * The floor: a process that only answers a constant view, polled by as many pollers during the
   * same load. What the machine itself allows a poll while the jobs run.
   */
  readonly floor: Percentiles & { readonly polls: number; readonly errors: number };
  /** The server loop's delay p99 under load, ms. */
  readonly eventLoopDelayP99Ms: number;
  readonly rss: { readonly idle: number; readonly peak: number; readonly perJob: number };
}

const git = (args: readonly string[], cwd: string) =>
  exec("git", ["-c", "user.name=Bench", "-c", "user.email=bench@localhost", "-c", "init.defaultBranch=main", ...args], {
    cwd,
  });

/** A seed repository and one bare clone of it per job. */
async function repositories(directory: string, count: number): Promise<string[]> {
  const seed = join(directory, "seed");
  await mkdir(seed);
  await git(["init"], seed);
  await writeFile(join(seed, "README.md"), "# app\n");
  await git(["add", "README.md"], seed);
  await git(["commit", "-m", "first"], seed);
  const bares: string[] = [];
  for (let index = 0; index < count; index++) {
    const bare = join(directory, `origin-${index}.git`);
    await git(["clone", "--quiet", "--bare", seed, bare], directory);
    bares.push(bare);
  }
  return bares;
}

interface Pollers {
  /** Their latencies, once every poller stopped. */
  readonly done: Promise<{ latencies: number[]; errors: number }>;
  /** Stops every poller after its current poll (SIGTERM). */
  stop(): void;
}

/** Starts the pollers' process. */
function startPollers(
  settings: { port: number; targets: readonly string[]; durationMs: number; untilSettled: boolean },
  signal: AbortSignal,
): Pollers {
  const child = spawn(process.execPath, [pollerEntry, JSON.stringify({ ...settings, token, intervalMs: 250 })], {
    stdio: ["ignore", "pipe", "pipe"],
    signal,
  });
  const done = new Promise<{ latencies: number[]; errors: number }>((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0) return reject(new Error(`The pollers exited ${code}: ${stderr.trim()}`));
      resolve(JSON.parse(stdout.trim()));
    });
  });
  return { done, stop: () => child.kill("SIGTERM") };
}

/** Starts the floor server (see floor-server.ts); resolves with its port and a way to stop it (idempotent). */
function startFloorServer(signal: AbortSignal): Promise<{ port: number; stop(): void }> {
  return new Promise((resolve, reject) => {
    const child = fork(floorEntry, [], { stdio: ["ignore", "ignore", "ignore", "ipc"], signal });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`The floor server exited ${code} before it listened.`)));
    child.once("message", (port: number) => {
      child.removeAllListeners("exit");
      resolve({ port, stop: () => child.connected && child.disconnect() });
    });
  });
}

async function post(port: number, body: unknown): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}/run`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (response.status !== 202) throw new Error(`POST /run answered ${response.status}: ${await response.text()}`);
}

/** Every job's state, without draining anything. */
async function states(port: number): Promise<Map<string, string>> {
  const response = await fetch(`http://127.0.0.1:${port}/jobs?limit=1000`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const { jobs } = (await response.json()) as { jobs: { jobId: string; state: string }[] };
  return new Map(jobs.map((job) => [job.jobId, job.state]));
}

const live = new Set(["queued", "running"]);

/** The VmRSS of `pid` in bytes, or 0 once it is gone. */
async function rssOf(pid: string): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/**
 * The server's memory: this process plus the helpers it runs for its jobs (each Session's
 * sandbox worker process and the spawn broker), read from /proc.
 */
async function serverRss(): Promise<number> {
  let total = process.memoryUsage.rss();
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
    if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== process.pid) continue;
    const commandLine = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    if (/sandbox-worker\/worker\.js|broker\/broker\.js/.test(commandLine)) total += await rssOf(name);
  }
  return total;
}

function jobBody(jobId: string, bare: string): unknown {
  return {
    jobId,
    model: { provider: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", token: "bench-model-token", id: jobId },
    systemPrompt: "Bench job.",
    repo: { url: `file://${bare}`, baseBranch: "main" },
  };
}

/** Runs the bench; closes the server and removes its directory whatever happens. */
export async function runExecutorBench(options: ExecutorBenchOptions): Promise<ExecutorBenchReport> {
  const limit = AbortSignal.timeout(options.limitMs);
  const directory = await mkdtemp(join(tmpdir(), "castellan-bench-executor-"));
  let server: ExecutorServer | undefined;
  try {
    const bares = await repositories(directory, options.jobs + 1);
    server = createExecutorServer({
      token,
      host: "127.0.0.1",
      port: 0,
      env: {},
      maxConcurrentJobs: options.jobs,
      allowFileRemotes: true,
      dataDirectory: join(directory, "data"),
      transcriptRoot: join(directory, "transcripts"),
      sandboxStatusFile: join(directory, "sandbox-status.json"),
      modelFactory: () => pacedModel(options.turns, options.turnMs),
      log: options.log ?? (() => undefined),
    });
    const { port } = await server.listen();
    const wait = async (done: () => Promise<boolean>) => {
      while (!(await done())) {
        if (limit.aborted) throw new Error(`The executor bench passed its ${options.limitMs} ms limit.`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };

    // The idle side: one finished job, polled by as many pollers as there will be jobs.
    options.progress?.("one job, then the idle pollers");
    await post(port, jobBody("finished", bares[options.jobs] as string));
    await wait(async () => !live.has((await states(port)).get("finished") ?? "missing"));
    globalThis.gc?.();
    const idleRss = await serverRss();
    const idle = await startPollers(
      {
        port,
        targets: Array.from({ length: options.jobs }, () => "finished"),
        durationMs: options.idleMs,
        untilSettled: false,
      },
      limit,
    ).done;
    const floorServer = await startFloorServer(limit);

    // The loaded side: every job at once, each with its poller.
    options.progress?.(`${options.jobs} jobs of ${options.turns} turns, each polled at 4 Hz`);
    const ids = Array.from({ length: options.jobs }, (_, index) => `bench-${index}`);
    let peakRss = idleRss;
    let sampling = false;
    const sampler = setInterval(() => {
      if (sampling) return;
      sampling = true;
      void serverRss().then((rss) => {
        peakRss = Math.max(peakRss, rss);
        sampling = false;
      });
    }, 500);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = performance.now();
    let loadMs = 0;
    let load: { latencies: number[]; errors: number };
    let final = new Map<string, string>();
    const floorPollers = startPollers(
      { port: floorServer.port, targets: ids, durationMs: options.limitMs, untilSettled: false },
      limit,
    );
    try {
      await Promise.all(ids.map((jobId, index) => post(port, jobBody(jobId, bares[index] as string))));
      [load] = await Promise.all([
        startPollers({ port, targets: ids, durationMs: options.limitMs, untilSettled: true }, limit).done,
        wait(async () => {
          final = await states(port);
          const done = ids.every((jobId) => !live.has(final.get(jobId) ?? "missing"));
          if (done) loadMs = performance.now() - started;
          return done;
        }),
      ]);
    } finally {
      clearInterval(sampler);
      delay.disable();
      // The floor's pollers stop after their current poll; the floor server goes once they have.
      floorPollers.stop();
      await floorPollers.done.catch(() => undefined);
      floorServer.stop();
    }
    const floor = await floorPollers.done;
    const succeeded = ids.filter((jobId) => final.get(jobId) === "succeeded").length;
    const failures: { jobId: string; state: string; code?: string; message?: string }[] = [];
    for (const jobId of ids.filter((id) => final.get(id) !== "succeeded")) {
      const response = await fetch(`http://127.0.0.1:${port}/jobs/${jobId}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const view = (await response.json()) as { state: string; error?: { code: string; message: string } };
      failures.push({ jobId, state: view.state, ...(view.error ?? {}) });
    }
    return {
      failures,
      jobs: options.jobs,
      turns: options.turns,
      turnMs: options.turnMs,
      succeeded,
      loadMs,
      idle: { ...percentiles(idle.latencies), polls: idle.latencies.length, errors: idle.errors },
      load: { ...percentiles(load.latencies), polls: load.latencies.length, errors: load.errors },
      floor: { ...percentiles(floor.latencies), polls: floor.latencies.length, errors: floor.errors },
      eventLoopDelayP99Ms: delay.percentile(99) / 1e6,
      rss: { idle: idleRss, peak: peakRss, perJob: Math.max(0, peakRss - idleRss) / options.jobs },
    };
  } finally {
    await server?.close();
    await rm(directory, { recursive: true, force: true });
  }
}

const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
const ms = (value: number) => `${value.toFixed(2)} ms`;

/** The report as printed: figures side by side, the ratio and the targets with PASS or MISS. */
export function formatExecutorBenchReport(report: ExecutorBenchReport): string {
  const ratio = report.load.p99 / report.idle.p99;
  const verdict = (ok: boolean) => (ok ? "PASS" : "MISS");
  return [
    `executor bench: ${report.jobs} concurrent jobs of ${report.turns} turns of ${report.turnMs} ms, a poller per job at 4 Hz`,
    `  jobs succeeded              ${report.succeeded}/${report.jobs} in ${(report.loadMs / 1_000).toFixed(1)} s`,
    ...report.failures.map((failure) =>
      `    ${failure.jobId}: ${failure.state} ${failure.code ?? ""} ${failure.message ?? ""}`.trimEnd(),
    ),
    `  poll latency, idle server   p50 ${ms(report.idle.p50).padStart(10)}  p99 ${ms(report.idle.p99).padStart(10)}  (${report.idle.polls} polls, ${report.idle.errors} errors; baseline)`,
    `  poll latency, under load    p50 ${ms(report.load.p50).padStart(10)}  p99 ${ms(report.load.p99).padStart(10)}  (${report.load.polls} polls, ${report.load.errors} errors)`,
    `  poll latency, floor         p50 ${ms(report.floor.p50).padStart(10)}  p99 ${ms(report.floor.p99).padStart(10)}  (${report.floor.polls} polls, ${report.floor.errors} errors; a process answering a constant view, same load)`,
    `  event-loop delay p99        ${ms(report.eventLoopDelayP99Ms)}`,
    `  server RSS                  idle ${mib(report.rss.idle)}, peak ${mib(report.rss.peak)}, per job ${mib(report.rss.perJob)}`,
    `  poll p99 under load / idle  ${ratio.toFixed(2)}x  (<= 5) ${verdict(ratio <= 5)}`,
    `  poll p99 under load         ${ms(report.load.p99)}  (< 50 ms) ${verdict(report.load.p99 < 50)}`,
    `  floor p99 under load / idle ${(report.floor.p99 / report.idle.p99).toFixed(2)}x  (what the machine leaves of the 5x)`,
    "",
  ].join("\n");
}
