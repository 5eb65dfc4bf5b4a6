import { readdir, readFile, rm } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import type { JsonValue, RunEvent } from "@castellan/harness";
import { errorMessage } from "@castellan/harness";
import { makePrivateDirectory, writePrivateFileAtomically } from "@castellan/node-runner";
import { ExecutorRequestError } from "../errors/errors.js";
import { logLine } from "../log/log.js";
import { createRedactor, type Redactor } from "../log/redactor.js";
import { JobEventLog } from "../telemetry/event-log.js";
import { bufferedJobEvents, JobEventStream } from "../telemetry/job-events.js";
import { type DrainedTelemetry, JobTelemetry } from "../telemetry/job-telemetry.js";
import type { CredentialFields } from "./credential-fields.js";
import { bodyWithoutCredentials, credentialsOf, jobIdentity } from "./identity.js";
import { isJobId } from "./job-id.js";
import {
  type JobError,
  type JobPhase,
  type JobProgress,
  type JobRecord,
  type JobRoute,
  type JobState,
  type JobSummary,
  summaryOf,
  terminalStates,
} from "./job-record.js";

/** What every job body has: its id. */
export interface JobBodyBase {
  readonly jobId: string;
}

/** The bodies of a registry's job kinds, by kind name. */
export type JobBodies = Readonly<Record<string, JobBodyBase>>;

/** What a job's work is given beside its kind and body: the record as it stands, its directory, signal and reporting. */
export interface JobWorkFields {
  readonly jobId: string;
  /** The job's own directory, `jobs/<jobId>/` (0700). */
  readonly directory: string;
  readonly resumedFrom?: JobRecord["resumedFrom"];
  /** The base branch's sha an earlier run of this job cloned, if one got that far. */
  readonly baseSha?: string;
  /** Aborted when the job is cancelled or the server stops. */
  readonly signal: AbortSignal;
  /** Where the job publishes spans, follow-ups and model calls. */
  readonly telemetry: JobTelemetry;
  /** Scrubs the job's credentials (those of this run's body) from anything shown or saved. */
  readonly redactor: Redactor;
  /** Streams a pass's Run event to the job's event clients (deltas are left out, the rest scrubbed). */
  publishRunEvent(pass: string, event: RunEvent): void;
  /** Saves where the job stands. */
  update(patch: {
    readonly phase?: JobPhase;
    readonly pass?: string;
    readonly progress?: JobProgress;
    readonly diagnostics?: JobRecord["diagnostics"];
    readonly baseSha?: string;
  }): Promise<void>;
}

/**
 * What a job's work is given: {@link JobWorkFields}, its kind and the full body (credentials
 * included, in memory only) as submitted by the POST that started this run (a resume brings
 * fresh credentials). A union over the kinds, so `kind` narrows `body`.
 */
export type JobWork<Bodies extends JobBodies = JobBodies> = JobWorkFields & SubmittedJob<Bodies>;

/** A kind and its body, as one union over the kinds. */
export type SubmittedJob<Bodies extends JobBodies, Kinds extends keyof Bodies & string = keyof Bodies & string> = {
  [Kind in Kinds]: { readonly kind: Kind; readonly body: Bodies[Kind] };
}[Kinds];

/** How a job's work ended. */
export type JobOutcome = { readonly result: JsonValue } | { readonly error: JobError };

/** Runs one job: clone, agent passes, push. The registry owns its state; the work reports through `update`. */
export type JobRunner<Bodies extends JobBodies = JobBodies> = (work: JobWork<Bodies>) => Promise<JobOutcome>;

/** Options of {@link createJobRegistry}. */
export interface JobRegistryOptions<Bodies extends JobBodies = JobBodies> {
  /** `dataDirectory/jobs`. */
  readonly directory: string;
  /** Jobs running at once; later ones wait `queued`, first in first out. */
  readonly maxConcurrentJobs: number;
  /** Jobs waiting at most; the next submission is `queue-full`. Default 1,000. */
  readonly maxQueued?: number;
  readonly run: JobRunner<Bodies>;
  /**
   * Where each kind's body holds credentials (`credentialFieldsOf` its schema): they are left
   * out of `job.json` and of the identity, and scrubbed from what the job shows. A kind without
   * an entry is refused at `submit`.
   */
  readonly credentials: { readonly [Kind in keyof Bodies & string]: CredentialFields };
  /** The clock. Default `Date.now`. */
  readonly now?: () => number;
  /** Where log lines go. Default: JSON lines on stderr. */
  readonly log?: (entry: { readonly kind: string; readonly [field: string]: unknown }) => void;
}

/** What a submission did: the job it names, its state, and whether this call started or resumed it. */
export interface Submission {
  readonly jobId: string;
  readonly state: JobState;
  readonly started: boolean;
}

/** The jobs of one server: their records on disk, the queue, the running ones and their signals. */
export interface JobRegistry<Bodies extends JobBodies = JobBodies> {
  /** Loads the saved records: queued and running ones become `interrupted`; leftover secrets and checkouts go. */
  open(): Promise<void>;
  /**
   * Submits a body on a route. A new job id starts a job (`queued`); the same id with the same
   * body attaches to the job (or, when it was interrupted, resumes it with this body's
   * credentials); a different body or route is `job-conflict`.
   */
  submit<Kind extends keyof Bodies & string>(route: JobRoute, kind: Kind, body: Bodies[Kind]): Promise<Submission>;
  /** The job's summary with the telemetry published since the last view (which this takes), or `job-not-found`. */
  view(jobId: string): JobSummary & DrainedTelemetry;
  /** The job's summary, without taking its telemetry, or `job-not-found`. */
  peek(jobId: string): JobSummary;
  /**
   * Serves the job's event stream as SSE to `response`: the retained events after
   * `lastEventId` (all of them without it), then the live ones until `job-end`; a settled job's
   * stream is read from its event file and ends after the replay. `job-not-found` first.
   */
  follow(jobId: string, response: ServerResponse, lastEventId: number | undefined): Promise<void>;
  /** Summaries, newest first, optionally of one state; at most `limit`. */
  list(options: { readonly state?: JobState; readonly limit: number }): JobSummary[];
  /** Cancels a queued or running job (nothing is done after); a settled job is left as it is. */
  cancel(jobId: string): Promise<{ readonly state: JobState; readonly changed: boolean }>;
  /** Refuses submissions, aborts running jobs and records them `interrupted`, and waits for them. */
  close(): Promise<void>;
  /** Forgets the records of jobs whose directories the retention sweep removed. */
  forget(jobIds: readonly string[]): void;
  /** The ids of jobs queued or running now. */
  live(): ReadonlySet<string>;
}

interface Active {
  readonly controller: AbortController;
  cancelRequested: boolean;
  done: Promise<void>;
}

/** Creates a registry over `directory`; call `open()` before anything else. */
export function createJobRegistry<Bodies extends JobBodies = JobBodies>(
  options: JobRegistryOptions<Bodies>,
): JobRegistry<Bodies> {
  const now = () => new Date((options.now ?? Date.now)()).toISOString();
  const maxQueued = options.maxQueued ?? 1_000;
  const log = options.log ?? logLine;
  const records = new Map<string, JobRecord>();
  const telemetries = new Map<string, JobTelemetry>();
  // The event streams in memory: a live job's, or a settled one's while a client is served.
  const streams = new Map<string, { readonly stream: JobEventStream; readonly log: JobEventLog }>();
  const loading = new Map<string, Promise<JobEventStream>>();
  const queue: { readonly jobId: string; readonly job: SubmittedJob<Bodies> }[] = [];
  const active = new Map<string, Active>();
  let closing = false;
  // Writes of one job are serialized, so the file holds the latest record.
  const writes = new Map<string, Promise<void>>();

  const jobDirectory = (jobId: string) => join(options.directory, jobId);
  const isLive = (jobId: string) => active.has(jobId) || queue.some((entry) => entry.jobId === jobId);

  /** What `job-end` carries: the state, and the error or the result of the record. */
  function endOf(record: JobRecord): JsonValue {
    return {
      state: record.state,
      ...(record.error ? { error: { code: record.error.code, message: record.error.message } } : {}),
      ...(record.result !== undefined ? { result: record.result } : {}),
    } as JsonValue;
  }

  /**
   * The job's event stream, from memory or from its event file, so ids go on where they
   * stopped. A settled job whose file does not end with `job-end` (a server killed mid-run, or
   * a job older than the file) gets its state and end appended once, numbered on, so every
   * client sees the same ids for them.
   */
  function loadStream(jobId: string): Promise<JobEventStream> {
    const loaded = streams.get(jobId);
    if (loaded) return Promise.resolve(loaded.stream);
    let pending = loading.get(jobId);
    if (!pending) {
      pending = (async () => {
        await makePrivateDirectory(jobDirectory(jobId));
        const { events, log } = await JobEventLog.open(join(jobDirectory(jobId), "events.jsonl"), bufferedJobEvents);
        const stream = new JobEventStream({ events, sink: log });
        streams.set(jobId, { stream, log });
        const record = records.get(jobId);
        if (record && terminalStates.has(record.state) && !isLive(jobId) && !stream.ended) {
          stream.publish("job-state-changed", { state: record.state, phase: record.phase ?? null });
          stream.publish("job-end", endOf(record));
        }
        return stream;
      })().finally(() => loading.delete(jobId));
      loading.set(jobId, pending);
    }
    return pending;
  }

  /** Drops a settled job's stream from memory once its file holds every event (a later client reads the file). */
  async function releaseStream(jobId: string): Promise<void> {
    const loaded = streams.get(jobId);
    if (!loaded) return;
    await loaded.log.flush();
    if (loaded.stream.ended && !isLive(jobId) && streams.get(jobId) === loaded) streams.delete(jobId);
  }

  /** Ends the stream of a job that settled without running (cancelled or stopped while queued). */
  async function endUnstarted(jobId: string): Promise<void> {
    const loaded = streams.get(jobId);
    if (!loaded || loaded.stream.ended) return;
    loaded.stream.publish("job-end", endOf(recordOf(jobId)));
    log({ kind: "job-end", jobId, state: recordOf(jobId).state, code: null, durationMs: 0 });
    await releaseStream(jobId);
  }

  function save(record: JobRecord): Promise<void> {
    const before = records.get(record.jobId);
    records.set(record.jobId, record);
    const stream = streams.get(record.jobId)?.stream;
    if (stream && (before?.state !== record.state || before?.phase !== record.phase)) {
      stream.publish("job-state-changed", { state: record.state, phase: record.phase ?? null });
    }
    if (stream && record.progress && JSON.stringify(before?.progress) !== JSON.stringify(record.progress)) {
      stream.publish("job-progress", record.progress as unknown as JsonValue);
    }
    const previous = writes.get(record.jobId) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        await makePrivateDirectory(jobDirectory(record.jobId));
        await writePrivateFileAtomically(join(jobDirectory(record.jobId), "job.json"), `${JSON.stringify(record)}\n`);
      });
    writes.set(record.jobId, next);
    return next;
  }

  async function telemetryOf(jobId: string): Promise<JobTelemetry> {
    let telemetry = telemetries.get(jobId);
    if (!telemetry) {
      telemetry = await JobTelemetry.open(join(jobDirectory(jobId), "telemetry.jsonl"));
      telemetries.set(jobId, telemetry);
    }
    return telemetry;
  }

  /** Publishes the span of the phase a record leaves (or ends in). */
  function closePhase(telemetry: JobTelemetry, record: JobRecord, since: number, ok: boolean): void {
    if (!record.phase) return;
    telemetry.publishSpan({
      kind: "phase",
      name: record.phase,
      pass: record.pass ?? null,
      startedAt: new Date(since).toISOString(),
      durationMs: Math.max(0, (options.now ?? Date.now)() - since),
      ok,
    });
  }

  const recordOf = (jobId: string): JobRecord => {
    const record = records.get(jobId);
    if (!record) throw new ExecutorRequestError("executor_job_not_found", "No job has this id.");
    return record;
  };

  function pump(): void {
    while (!closing && active.size < options.maxConcurrentJobs && queue.length > 0) {
      const next = queue.shift();
      if (next) start(next.jobId, next.job);
    }
  }

  /** The credential values of a job's body, for its redactor. */
  const secretsOf = (job: SubmittedJob<Bodies>): string[] => credentialsOf(job.body, fieldsOf(job.kind));

  function fieldsOf(kind: keyof Bodies & string) {
    const fields = options.credentials[kind];
    if (!fields) throw new Error(`The registry has no credential fields for job kind "${kind}".`);
    return fields;
  }

  function start(jobId: string, job: SubmittedJob<Bodies>): void {
    const entry: Active = {
      controller: new AbortController(),
      cancelRequested: false,
      done: Promise.resolve(),
    };
    active.set(jobId, entry);
    entry.done = execute(jobId, job, entry)
      .catch((error: unknown) => {
        const message = createRedactor(secretsOf(job)).scrub(errorMessage(error));
        log({ kind: "job-record-failed", jobId, message });
      })
      .finally(() => {
        active.delete(jobId);
        pump();
      });
  }

  /** Runs the job's work and saves how it ended. */
  async function execute(jobId: string, job: SubmittedJob<Bodies>, entry: Active): Promise<void> {
    const { controller } = entry;
    const clock = options.now ?? Date.now;
    const redactor = createRedactor(secretsOf(job));
    // Loaded by the submission: taken at once, so the job is `running` before submit answers.
    const stream = streams.get(jobId)?.stream ?? (await loadStream(jobId));
    const started = { ...recordOf(jobId), state: "running" as const, startedAt: now() };
    const startedAt = clock();
    await save(started);
    log({
      kind: "job-start",
      jobId,
      route: started.route,
      jobKind: started.kind,
      ...(started.resumedFrom ? { resumedFrom: started.resumedFrom } : {}),
    });
    const telemetry = await telemetryOf(jobId);
    let phaseSince = clock();
    let outcome: JobOutcome;
    try {
      // Stopped or cancelled before it began: nothing runs.
      if (controller.signal.aborted) throw controller.signal.reason;
      outcome = await options.run({
        ...job,
        jobId,
        directory: jobDirectory(jobId),
        ...(started.resumedFrom ? { resumedFrom: started.resumedFrom } : {}),
        ...(started.baseSha ? { baseSha: started.baseSha } : {}),
        signal: controller.signal,
        telemetry,
        redactor,
        publishRunEvent: (pass, event) => {
          // Deltas stay out: a credential split across them would escape the scrub.
          if (event.kind.endsWith("-delta")) return;
          stream.publish(event.kind, redactor.scrubJson({ ...event, pass }) as unknown as JsonValue);
        },
        update: async (patch) => {
          const current = recordOf(jobId);
          if (patch.phase !== undefined && patch.phase !== current.phase) {
            closePhase(telemetry, current, phaseSince, true);
            phaseSince = clock();
            log({
              kind: "job-phase",
              jobId,
              phase: patch.phase,
              previous: current.phase ?? null,
              pass: patch.pass ?? current.pass ?? null,
            });
          }
          await save({ ...recordOf(jobId), ...patch });
        },
      });
    } catch (error) {
      outcome = {
        error: { code: "internal", message: redactor.scrub(errorMessage(error)) },
      };
    }
    const state: JobState = entry.cancelRequested
      ? "cancelled"
      : closing && controller.signal.aborted
        ? "interrupted"
        : "error" in outcome
          ? "failed"
          : "succeeded";
    closePhase(telemetry, recordOf(jobId), phaseSince, state === "succeeded");
    // The result (or error) repeats every model call of the job, drained or not.
    const callMetrics = telemetry.allCalls() as unknown as JsonValue;
    await save({
      ...recordOf(jobId),
      state,
      endedAt: now(),
      ...(state === "succeeded" && "result" in outcome
        ? { result: { ...(outcome.result as Record<string, JsonValue>), callMetrics } }
        : {}),
      ...(state === "failed" && "error" in outcome ? { error: { ...outcome.error, callMetrics } } : {}),
      // A job stopped mid-pass says what its salvage and last checkpoint kept.
      ...((state === "cancelled" || state === "interrupted") && "error" in outcome && stoppedEvidence(outcome.error)
        ? { error: { ...outcome.error, callMetrics } }
        : {}),
    });
    await telemetry.close();
    const ended = recordOf(jobId);
    stream.publish("job-end", endOf(ended));
    log({
      kind: "job-end",
      jobId,
      state,
      code: ended.error?.code ?? null,
      durationMs: Math.max(0, clock() - startedAt),
    });
    // A resumed run goes on in the same stream, its ids after these: they are the job's.
    await releaseStream(jobId);
  }

  return {
    async open() {
      await makePrivateDirectory(options.directory);
      for (const entry of await readdir(options.directory, { withFileTypes: true })) {
        if (!entry.isDirectory() || !isJobId(entry.name)) continue;
        const directory = jobDirectory(entry.name);
        // Credentials and checkouts never outlive their job.
        await rm(join(directory, "secrets"), { recursive: true, force: true });
        await rm(join(directory, "checkout"), { recursive: true, force: true });
        let record: JobRecord;
        try {
          record = JSON.parse(await readFile(join(directory, "job.json"), "utf8")) as JobRecord;
        } catch (error) {
          log({ kind: "job-record-unreadable", jobId: entry.name, message: (error as Error).message });
          continue;
        }
        if (record.formatVersion !== 1 || record.jobId !== entry.name) {
          log({ kind: "job-record-unreadable", jobId: entry.name, message: "not a job record of this server" });
          continue;
        }
        records.set(record.jobId, record);
        // What no read took before the stop is still handed out.
        await telemetryOf(record.jobId);
        if (record.state === "queued" || record.state === "running") {
          await save({ ...record, state: "interrupted", endedAt: now() });
        }
      }
    },

    async submit<Kind extends keyof Bodies & string>(route: JobRoute, kind: Kind, body: Bodies[Kind]) {
      if (closing) throw new ExecutorRequestError("executor_shutting_down", "The server is shutting down.");
      const fields = fieldsOf(kind);
      const identity = jobIdentity(route, body, fields);
      const existing = records.get(body.jobId);
      if (existing) {
        if (existing.identity !== identity) {
          throw new ExecutorRequestError(
            "executor_job_conflict",
            "A job with this id exists with another body or route; choose a new job id.",
          );
        }
        if (existing.state !== "interrupted") return { jobId: existing.jobId, state: existing.state, started: false };
      } else if (queue.length >= maxQueued) {
        throw new ExecutorRequestError(
          "executor_queue_full",
          `${maxQueued} jobs are already waiting; try again later.`,
        );
      }
      // Loaded first, so the queued state is an event, numbered after the job's earlier ones.
      await loadStream(body.jobId);
      if (existing) {
        // A resumed run: the same job, its earlier end and outcome cleared.
        const { endedAt: _ended, error: _error, result: _result, ...kept } = existing;
        await save({
          ...kept,
          state: "queued",
          resumedFrom: { count: (existing.resumedFrom?.count ?? 0) + 1, lastPhase: existing.phase ?? null },
        });
      } else {
        await save({
          formatVersion: 1,
          jobId: body.jobId,
          route,
          kind,
          identity,
          state: "queued",
          createdAt: now(),
          body: bodyWithoutCredentials(body, fields) as unknown as JsonValue,
        });
      }
      const job: SubmittedJob<Bodies, Kind> = { kind, body };
      queue.push({ jobId: body.jobId, job });
      pump();
      return { jobId: body.jobId, state: recordOf(body.jobId).state, started: true };
    },

    view(jobId) {
      const summary = summaryOf(recordOf(jobId));
      const telemetry = telemetries.get(jobId);
      const drained = telemetry?.drain() ?? { spans: [], followUps: [], callMetrics: [], droppedSpans: 0 };
      return { ...summary, ...drained };
    },

    peek(jobId) {
      return summaryOf(recordOf(jobId));
    },

    async follow(jobId, response, lastEventId) {
      recordOf(jobId);
      const stream = await loadStream(jobId);
      stream.follow(response, lastEventId);
      if (stream.ended) await releaseStream(jobId);
    },

    list({ state, limit }) {
      return [...records.values()]
        .filter((record) => state === undefined || record.state === state)
        .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
        .slice(0, limit)
        .map(summaryOf);
    },

    async cancel(jobId) {
      const record = recordOf(jobId);
      if (terminalStates.has(record.state)) return { state: record.state, changed: false };
      const running = active.get(jobId);
      if (running?.cancelRequested) return { state: "cancelled", changed: false };
      if (running) {
        running.cancelRequested = true;
        running.controller.abort(new Error("The job was cancelled."));
        return { state: "cancelled", changed: true };
      }
      const waiting = queue.findIndex((entry) => entry.jobId === jobId);
      if (waiting >= 0) {
        queue.splice(waiting, 1);
        await save({ ...record, state: "cancelled", endedAt: now() });
        await endUnstarted(jobId);
        return { state: "cancelled", changed: true };
      }
      return { state: record.state, changed: false };
    },

    forget(jobIds) {
      for (const jobId of jobIds) {
        if (active.has(jobId) || queue.some((entry) => entry.jobId === jobId)) continue;
        records.delete(jobId);
        telemetries.delete(jobId);
        streams.delete(jobId);
      }
    },

    live() {
      return new Set([...active.keys(), ...queue.map((entry) => entry.jobId)]);
    },

    async close() {
      closing = true;
      for (const waiting of queue.splice(0)) {
        await save({ ...recordOf(waiting.jobId), state: "interrupted", endedAt: now() });
        await endUnstarted(waiting.jobId);
      }
      for (const entry of active.values()) entry.controller.abort(new Error("The server is stopping."));
      await Promise.all([...active.values()].map((entry) => entry.done));
      await Promise.all([...writes.values()].map((write) => write.catch(() => undefined)));
      await Promise.all([...loading.values()].map((load) => load.catch(() => undefined)));
      await Promise.all([...streams.values()].map(({ log: events }) => events.flush()));
      // Drains after a job's end write cursors; their files are closed with the rest.
      await Promise.all([...telemetries.values()].map((telemetry) => telemetry.close().catch(() => undefined)));
    },
  };
}

/** True when a stopped job's error carries what its last salvage and checkpoint did. */
function stoppedEvidence(error: { readonly evidence?: JsonValue }): boolean {
  const evidence = error.evidence;
  return typeof evidence === "object" && evidence !== null && !Array.isArray(evidence) && "stopped" in evidence;
}
