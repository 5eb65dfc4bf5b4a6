import { randomBytes } from "node:crypto";
import { rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { JsonValue, RunEvent } from "@castellan/harness";
import { resolveEnvironmentPolicy, SandboxUnavailableError } from "@castellan/node-runner";
import { runAgentPass } from "../agent/agent-pass.js";
import type { BodyModel, ModelFactory } from "../agent/model-factory.js";
import { makePrivateDirectory } from "../files/private-files.js";
import { GitCommandError, prepareHooksPath, runGit, type SpawnProcess } from "../git/git.js";
import { gitAuthEnvironment } from "../git/git-auth.js";
import { type InventoryMemo, jobInventory } from "../inventory/job-inventory.js";
import type { ServerMeasurements } from "../inventory/measurements.js";
import { sandboxVerdictOfError } from "../sandbox/sandbox-probe.js";
import { runRecorder } from "../telemetry/run-recorder.js";
import { createJobWatch, type JobWatch, type WatchLimits } from "../watch/job-watch.js";
import { familyOf, type GuardLimits, ToolGuard } from "../watch/tool-guard.js";
import { type CommitAuthor, prepareCheckout } from "./checkout.js";
import type { JobBody } from "./job-body.js";
import { jobEnvironmentPolicy } from "./job-environment.js";
import { JobFailure } from "./job-failure.js";
import type { JobOutcome, JobRunner, JobWork } from "./job-registry.js";
import { salvage } from "./salvage.js";

/** The longest summary a result carries, in bytes. */
export const maxSummaryBytes = 16_384;

/** What the coder job needs from its server. */
export interface CoderJobOptions {
  readonly modelFactory: ModelFactory;
  /** The server's watchdog settings and guard limits (a body may raise the limits). */
  readonly limits: WatchLimits & GuardLimits;
  /**
   * The server's own paths no job's commands may read (the data directory, the transcript
   * root, the token file); the job's own checkout and home are opened again inside them.
   */
  readonly protectedPaths: readonly string[];
  /** How the environment inventory is measured, and the settled findings the server's jobs share. */
  readonly inventory: {
    readonly memo: InventoryMemo;
    readonly sandboxProbeBinary: string;
    readonly egressTarget: string | undefined;
    readonly egressDnsName: string;
    readonly measurements?: ServerMeasurements;
  };
  /** The identity of the server's commits, set in each checkout for the agent's too. */
  readonly commitAuthor: CommitAuthor;
  /** Starts the server's own processes (git). Default `spawnDetached` from `@castellan/node-runner`. */
  readonly spawn?: SpawnProcess;
  /** Where a warning goes (a probe that could not tell). */
  readonly log?: (entry: { readonly kind: string; readonly [field: string]: unknown }) => void;
  /** Where Session logs are kept: `<transcriptRoot>/<jobId>.<8 hex>/`, marked for the retention sweep. */
  readonly transcriptRoot: string;
  /** Each Run event of a pass, with the pass's name. */
  readonly onEvent?: (jobId: string, pass: string, event: RunEvent) => void;
}

/** The marker of a transcript directory the retention sweep may delete. */
export const retainedMarker = ".castellan-retained";

function cutUtf8(text: string, bytes: number): string {
  const buffer = Buffer.from(text, "utf8");
  if (buffer.length <= bytes) return text;
  let end = bytes;
  // Back off to the start of a character.
  while (end > 0 && ((buffer[end] as number) & 0xc0) === 0x80) end--;
  return buffer.subarray(0, end).toString("utf8");
}

/**
 * The `coder` job: a shallow single-branch clone of the base branch, the work branch made from
 * it, one agent pass (`initial`, or `resume-<n>` for a resumed job), everything the agent left
 * committed, and a plain push of the work branch. Resolves `{ result: { branch, summary } }`
 * (the final text, scrubbed, at most 16 KiB) or `{ error }` with a scrubbed message; the
 * checkout and secrets never outlive the job.
 */
export function coderJob(options: CoderJobOptions): JobRunner {
  return async (work: JobWork): Promise<JobOutcome> => {
    const body = work.body as JobBody;
    const { redactor } = work;
    // Every line this job logs is scrubbed of its credentials first.
    const log = (entry: { readonly kind: string; readonly [field: string]: unknown }) =>
      options.log?.(redactor.scrubJson(entry));
    const checkout = join(work.directory, "checkout");
    const home = join(work.directory, "home");
    const hooksPath = join(work.directory, "hooks");
    const branch = body.repo.workBranch ?? `castellan/${work.jobId}`;
    const pass = work.resumedFrom ? `resume-${work.resumedFrom.count}` : "initial";
    let coldStart: number | undefined;
    const watch = createJobWatch(options.limits, {
      onColdStart: (afterMs) => {
        coldStart = afterMs;
        log({ kind: "job-cold-start", jobId: work.jobId, afterMs });
        void work.update({ diagnostics: { coldStart: { afterMs } } });
      },
    });
    const signal = AbortSignal.any([work.signal, watch.signal]);
    let marker: string | undefined;
    try {
      await rm(checkout, { recursive: true, force: true });
      await makePrivateDirectory(home);
      // Made here, private, before the task store would make it with the umask's mode.
      await makePrivateDirectory(join(work.directory, "tasks"));
      await prepareHooksPath(hooksPath);
      const environment = jobEnvironmentPolicy(home);
      const env = resolveEnvironmentPolicy(environment, "the job's commands").environmentFor();
      const git = { env, hooksPath, redactor, signal, ...(options.spawn ? { spawn: options.spawn } : {}) };

      await work.update({ phase: "clone" });
      const prepared = await prepareCheckout({
        url: body.repo.url,
        baseBranch: body.repo.baseBranch,
        workBranch: branch,
        checkout,
        cwd: work.directory,
        resumed: work.resumedFrom !== undefined,
        baseSha: work.baseSha,
        author: options.commitAuthor,
        git,
        auth: gitAuthEnvironment(body.repo.token, redactor),
      });
      if (prepared.baseSha !== work.baseSha) await work.update({ baseSha: prepared.baseSha });
      watch.activity();

      await work.update({ phase: "agent", pass });
      const transcriptDirectory = join(options.transcriptRoot, `${work.jobId}.${randomBytes(4).toString("hex")}`);
      await makePrivateDirectory(transcriptDirectory);
      marker = join(transcriptDirectory, retainedMarker);
      await writeFile(marker, `${work.jobId}\n`, { mode: 0o600 });
      const guard = new ToolGuard({ ...options.limits, ...body.tuning?.guardLimits });
      const startSha = prepared.startSha;
      const probe = noEditProbe({ checkout, git, startSha, guard, watch, log, jobId: work.jobId });
      const record = runRecorder(work.telemetry, pass);
      let text: string;
      try {
        ({ text } = await runAgentPass({
          jobId: work.jobId,
          pass: { name: pass, proxyPhasePath: body.proxyPhasePath === true },
          checkout,
          instructions: body.systemPrompt,
          network: body.network,
          model: body.model as BodyModel,
          modelFactory: options.modelFactory,
          transcriptDirectory,
          taskDirectory: join(work.directory, "tasks"),
          environment,
          filesystem: {
            denyRead: [...options.protectedPaths],
            allowRead: [checkout, home],
            allowWrite: [home],
          },
          redactor,
          signal,
          // Each probe feeds the inactivity watchdog, as a heartbeat would.
          appendix: (probe) =>
            jobInventory({
              ...options.inventory,
              network: body.network,
              probe: async (command, timeoutMs) => {
                const result = await probe(command, timeoutMs);
                watch.activity();
                return result;
              },
            }),
          onRunStart: () => {
            guard.passStarted();
            watch.passStarted();
          },
          onEvent: (event: RunEvent) => {
            record(event);
            work.publishRunEvent(pass, event);
            watchEvent(event, watch, guard, probe);
            options.onEvent?.(work.jobId, pass, event);
          },
          onProgress: (progress) => void work.update({ progress }),
        }));
      } finally {
        watch.passEnded();
      }

      await work.update({ phase: "salvage" });
      const salvaged = await salvage(checkout, git, `${work.jobId}, ${pass}`);

      await work.update({ phase: "push" });
      await runGit(["push", "--no-verify", "origin", `${branch}:refs/heads/${branch}`], checkout, {
        ...git,
        env: { ...git.env, ...gitAuthEnvironment(body.repo.token, redactor) },
      });
      return {
        result: {
          branch,
          summary: cutUtf8(redactor.scrub(text), maxSummaryBytes),
          salvage: redactor.scrubJson(salvaged) as unknown as JsonValue,
        },
      };
    } catch (error) {
      // A cold start is folded into whatever failure follows it.
      const failed = (code: string, message: string, evidence?: JsonValue): JobOutcome => {
        const folded =
          coldStart === undefined
            ? evidence
            : ({
                ...(evidence as Record<string, JsonValue> | undefined),
                coldStart: { afterMs: coldStart },
              } as JsonValue);
        return {
          error: {
            code,
            message: redactor.scrub(message),
            ...(folded !== undefined ? { evidence: redactor.scrubJson(folded) } : {}),
          },
        };
      };
      const killed = watch.failure;
      if (killed) return failed(killed.code, killed.message, killed.evidence);
      if (work.signal.aborted) return { error: { code: "aborted", message: "The job was stopped." } };
      const failure = jobFailureOf(error, options.inventory.measurements);
      if (failure) return failed(failure.code, failure.message, failure.evidence);
      const message = error instanceof Error ? error.message : String(error);
      return failed(error instanceof GitCommandError ? "git-failed" : "agent-failed", message);
    } finally {
      watch.dispose();
      // The retention period of the transcript runs from the job's end.
      if (marker) await utimes(marker, new Date(), new Date()).catch(() => undefined);
      await rm(checkout, { recursive: true, force: true });
      await rm(join(work.directory, "secrets"), { recursive: true, force: true });
    }
  };
}

const modelOutputEvents = new Set([
  "assistant-text-delta",
  "assistant-thinking-delta",
  "assistant-content",
  "tool-call",
]);

/**
 * A step's own failure: a `JobFailure`, or a sandbox that refused to open for the pass (the
 * same decided negative the live check fails a job on, recorded for `/health`).
 */
function jobFailureOf(error: unknown, measurements: ServerMeasurements | undefined): JobFailure | undefined {
  if (error instanceof JobFailure) return error;
  if (!(error instanceof SandboxUnavailableError)) return undefined;
  const verdict = sandboxVerdictOfError(error);
  measurements?.recordSandbox(verdict);
  if (verdict.state !== "unusable") return undefined;
  return new JobFailure("sandbox-unavailable", `The OS sandbox is unusable for this job: ${verdict.reason}.`, {
    sandbox: { verdict: verdict.state, reason: verdict.reason },
  });
}

/** Feeds one Run event to the watchdogs and the guard. */
function watchEvent(event: RunEvent, watch: JobWatch, guard: ToolGuard, probe: () => void): void {
  watch.activity();
  if (modelOutputEvents.has(event.kind)) watch.modelOutput();
  let family: ReturnType<typeof familyOf> | undefined;
  if (event.kind === "tool-end") {
    watch.toolCompleted(event.toolName);
    family = familyOf(event.toolName, event.source);
  } else if (event.kind === "hosted-tool-end" && event.hostedKind === "web-search") {
    watch.toolCompleted(event.toolName);
    family = "web";
  }
  if (family === undefined) return;
  const verdict = guard.observe(family);
  if (verdict.kind === "violation")
    watch.fail(verdict.code, `The guard stopped the job: ${verdict.detail}.`, { guard: guard.counts() });
  else if (verdict.kind === "probe") probe();
}

/**
 * The no-edit probe: after the bound, the tree is looked at. A dirty tree (ignored files aside)
 * or a HEAD off the pass's start satisfies the pass; a clean one is `guard-no-edit`, quoting what
 * was seen; a probe that throws is logged and the bound re-armed. One probe at a time.
 */
function noEditProbe(context: {
  readonly checkout: string;
  readonly git: Parameters<typeof runGit>[2];
  readonly startSha: string;
  readonly guard: ToolGuard;
  readonly watch: JobWatch;
  readonly jobId: string;
  readonly log: CoderJobOptions["log"];
}): () => void {
  let running = false;
  return () => {
    if (running) return;
    running = true;
    void (async () => {
      try {
        const status = (await runGit(["status", "--porcelain"], context.checkout, context.git)).trim();
        if (status !== "") return context.guard.editSatisfied();
        const head = await runGit(["rev-parse", "HEAD"], context.checkout, context.git).then(
          (sha) => sha.trim(),
          () => undefined,
        );
        if (head !== undefined && head !== context.startSha) return context.guard.editSatisfied();
        context.watch.fail("guard-no-edit", "The pass ran its action calls without changing the tree.", {
          tree: { status: "clean", head: head ?? null, startHead: context.startSha },
        });
      } catch (error) {
        context.log?.({
          kind: "job-probe-failed",
          jobId: context.jobId,
          message: error instanceof Error ? error.message : String(error),
        });
        context.guard.rearm();
      } finally {
        running = false;
      }
    })();
  };
}
