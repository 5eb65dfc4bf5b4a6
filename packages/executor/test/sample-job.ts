// One coding job on the sample project, run to its end through a real server: the bare
// repository, a scripted model, the POST, the job's events followed and its view polled until
// it settled. The caller registers the server's close.
import type { ModelRequest } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { expect } from "vitest";
import type { ExecutorServer, ExecutorServerOptions, ModelFactory } from "../src/index.js";
import { sampleRepository } from "./sample-project.ts";
import { followEvents, jobBody, type SseEvent, send, settled, startServer } from "./support.ts";

/** What a sample job left. */
export interface SampleJobRun {
  readonly view: any;
  readonly events: SseEvent[];
  readonly logged: unknown[];
  readonly requests: readonly ModelRequest[];
  readonly bare: string;
  readonly branch: string;
  /** The server's own temporary directory (data and transcripts). */
  readonly directory: string;
  readonly server: ExecutorServer;
}

/** Runs one job of `body` (its `jobId` default `job-1`) on a new sample repository under `base`. */
export async function runSampleJob(options: {
  readonly base: string;
  readonly steps: readonly ScriptedStepSource[];
  readonly body: Record<string, unknown>;
  readonly server?: ExecutorServerOptions;
  readonly files?: Readonly<Record<string, string>>;
  /** Called with the server as soon as it listens, to register its close. */
  readonly started: (server: ExecutorServer) => void;
}): Promise<SampleJobRun> {
  const bare = await sampleRepository(options.base, options.files);
  const model = scriptedModel(options.steps);
  const factory: ModelFactory = () => model;
  const started = await startServer({ allowFileRemotes: true, modelFactory: factory, ...options.server });
  options.started(started.server);
  const jobId = String(options.body.jobId ?? "job-1");
  const posted = await send(started.port, "POST", "/run", {
    body: JSON.stringify(jobBody({ jobId, repo: { url: `file://${bare}`, baseBranch: "main" }, ...options.body })),
  });
  expect(posted.status, posted.text).toBe(202);
  const following = followEvents(started.port, jobId);
  const view = await settled(started.port, jobId, 150_000);
  const { events } = await following;
  return {
    view,
    events,
    logged: started.logged,
    requests: model.requests,
    bare,
    branch: `castellan/${jobId}`,
    directory: started.directory,
    server: started.server,
  };
}
