import type { Capability, JsonValue, RunEvent } from "@castellan/harness";
import { errorMessage } from "@castellan/harness";
import type { EnvironmentPolicy, NodeRunnerPlugin, SandboxFilesystemPolicy } from "@castellan/node-runner";
import { runAgentPass } from "../../agent/agent-pass.js";
import type { BodyModel, ModelFactory } from "../../agent/model-factory.js";
import type { CheckoutGit } from "../../git/checkout-git.js";
import type { PublishRepository } from "../../git/publish-repository.js";
import type { Redactor } from "../../log/redactor.js";
import { type BranchPusher, startCheckpoints } from "../../push/branch-pusher.js";
import { JobFailure } from "../../registry/job-failure.js";
import type { JobWorkFields } from "../../registry/job-registry.js";
import { type SalvageOutcome, salvage } from "../../salvage/salvage.js";
import { runRecorder } from "../../telemetry/run-recorder.js";
import type { JobWatch } from "../../watch/job-watch.js";
import { noEditProbe, watchEvent } from "../../watch/pass-watch.js";
import type { ToolGuard } from "../../watch/tool-guard.js";

/** What every pass of a job shares. */
export interface PassContext {
  readonly work: JobWorkFields;
  readonly checkout: string;
  /** Git on the checkout, in the job's sandbox. */
  readonly checkoutGit: CheckoutGit;
  /** Where the checkout's commits are received and published from; with the pusher. */
  readonly publish: PublishRepository | undefined;
  readonly watch: JobWatch;
  readonly guard: ToolGuard;
  readonly signal: AbortSignal;
  readonly pusher: BranchPusher | undefined;
  readonly checkpointIntervalMs: number;
  /** How long the last checkpoint of a stopped job may take. */
  readonly finalCheckpointMs: number;
  readonly model: BodyModel;
  readonly modelFactory: ModelFactory;
  readonly proxyPhasePath: boolean;
  readonly network:
    | { readonly allowedDomains?: readonly string[]; readonly deniedDomains?: readonly string[] }
    | undefined;
  readonly environment: EnvironmentPolicy;
  readonly filesystem: SandboxFilesystemPolicy;
  readonly transcriptDirectory: string;
  readonly taskDirectory: string;
  readonly redactor: Redactor;
  readonly capabilities?: () => readonly Capability[];
  readonly plugins?: readonly NodeRunnerPlugin[];
  readonly skills?: readonly string[];
  /** The environment inventory, measured by the first pass and reused by the rest. */
  readonly inventory: (
    probe: Parameters<NonNullable<Parameters<typeof runAgentPass>[0]["appendix"]>>[0],
  ) => Promise<string>;
  readonly log: (entry: { readonly kind: string; readonly [field: string]: unknown }) => void;
  readonly onEvent?: (pass: string, event: RunEvent) => void;
  /** Whether salvage runs after each pass (the coder job's). */
  readonly salvage: boolean;
  /** What the stop of a job mid-pass did: filled in by the pass that was stopped. */
  readonly stopped: StoppedPass;
}

/** What was kept of a pass the job was stopped in: salvage first, then the last checkpoint. */
export interface StoppedPass {
  salvage?: SalvageOutcome;
  salvageError?: string;
  checkpoint?: { readonly pushed: boolean; readonly sha: string };
  checkpointError?: string;
}

/** What one pass left. */
export interface PassOutcome {
  readonly text: string;
  readonly salvage?: SalvageOutcome;
}

/**
 * One agent pass and what follows it: a new Session on its own Runner, the watchdogs and the
 * guard fed by its events, checkpoint pushes every `checkpointIntervalMs` while it runs (a
 * refused one fails the job with its code), one last checkpoint when the job is stopped
 * mid-pass, and the server's salvage after it.
 */
export async function runPass(
  context: PassContext,
  name: string,
  instructions: (inventory: string) => string,
): Promise<PassOutcome> {
  const { work, checkout, checkoutGit, watch, guard } = context;
  await work.update({ phase: "agent", pass: name });
  // An empty repository (a bootstrap from nothing) has no HEAD yet. With a pusher, the start
  // is received into the publish repository, where its ancestry is later checked.
  const startSha = context.publish
    ? ((await context.publish.receive(checkoutGit)) ?? "")
    : await checkoutGit.run(["rev-parse", "--verify", "--quiet", "HEAD"]).then(
        (sha) => sha.trim(),
        () => "",
      );
  context.pusher?.passStarted(startSha);
  const probe = noEditProbe({ git: checkoutGit, startSha, guard, watch, log: context.log, jobId: work.jobId });
  const record = runRecorder(work.telemetry, name);
  const stopCheckpoints = context.pusher
    ? startCheckpoints(context.pusher, context.checkpointIntervalMs, {
        onFailure: (failure) =>
          watch.fail(
            failure.code,
            failure.message,
            failure.evidence as Readonly<Record<string, JsonValue>> | undefined,
          ),
        onError: (error) =>
          context.log({
            kind: "job-checkpoint-failed",
            jobId: work.jobId,
            message: errorMessage(error),
          }),
      })
    : undefined;
  let text: string;
  try {
    ({ text } = await runAgentPass({
      jobId: work.jobId,
      pass: { name, proxyPhasePath: context.proxyPhasePath },
      checkout,
      instructions,
      network: context.network,
      model: context.model,
      modelFactory: context.modelFactory,
      transcriptDirectory: context.transcriptDirectory,
      taskDirectory: context.taskDirectory,
      environment: context.environment,
      filesystem: context.filesystem,
      redactor: context.redactor,
      signal: context.signal,
      ...(context.capabilities ? { capabilities: context.capabilities() } : {}),
      ...(context.plugins ? { plugins: context.plugins } : {}),
      ...(context.skills ? { skills: context.skills } : {}),
      appendix: context.inventory,
      onRunStart: () => {
        guard.passStarted();
        watch.passStarted();
      },
      onEvent: (event: RunEvent) => {
        record(event);
        work.publishRunEvent(name, event);
        watchEvent(event, watch, guard, probe);
        context.onEvent?.(name, event);
      },
      onProgress: (progress) => void work.update({ progress }),
    }));
  } catch (error) {
    stopCheckpoints?.();
    if (work.signal.aborted && context.pusher) await finalCheckpoint(context, context.pusher, name);
    throw error;
  } finally {
    stopCheckpoints?.();
    watch.passEnded();
  }
  if (!context.salvage) return { text };
  await work.update({ phase: "salvage" });
  return { text, salvage: await salvage(checkoutGit, `${work.jobId}, ${name}`) };
}

/**
 * The job was stopped mid-pass: what the agent left uncommitted is salvaged (a coder job), then
 * what it committed is published once more, both within one bound of their own.
 */
async function finalCheckpoint(context: PassContext, pusher: BranchPusher, name: string): Promise<void> {
  const signal = AbortSignal.timeout(context.finalCheckpointMs);
  if (context.salvage) {
    try {
      context.stopped.salvage = await salvage(context.checkoutGit, `${context.work.jobId}, ${name}, stopped`, {
        signal,
      });
      context.log({
        kind: "job-final-salvage",
        jobId: context.work.jobId,
        committed: context.stopped.salvage.committed.length,
      });
    } catch (error) {
      context.stopped.salvageError = errorMessage(error);
      context.log({
        kind: "job-final-salvage-failed",
        jobId: context.work.jobId,
        message: context.stopped.salvageError,
      });
    }
  }
  try {
    // A checkpoint, not a push: a job stopped before its first commit publishes no empty branch.
    const result = await pusher.checkpoint(signal);
    context.stopped.checkpoint = { pushed: result.pushed, sha: result.sha };
    context.log({ kind: "job-final-checkpoint", jobId: context.work.jobId, pushed: result.pushed, sha: result.sha });
  } catch (error) {
    context.stopped.checkpointError = errorMessage(error);
    context.log({
      kind: "job-final-checkpoint-failed",
      jobId: context.work.jobId,
      code: error instanceof JobFailure ? error.code : undefined,
      message: errorMessage(error),
    });
  }
}
