import { randomBytes } from "node:crypto";
import { rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { JsonValue, RunEvent } from "@castellan/harness";
import { cutUtf8, errorMessage } from "@castellan/harness";
import {
  makePrivateDirectory,
  type RefusedGitConfig,
  resolveEnvironmentPolicy,
  SandboxUnavailableError,
} from "@castellan/node-runner";
import type { BodyModel, ModelFactory } from "../agent/model-factory.js";
import { jobCapabilities } from "../capabilities/job-capabilities.js";
import { materializeSkills } from "../capabilities/skill-files.js";
import { withJobCommands } from "../commands/job-commands.js";
import { jobEnvironmentPolicy } from "../config/job-environment.js";
import type { ExecutorKnobs } from "../config/knobs.js";
import type { ContextImageKind, ContextStaging } from "../context/context-staging.js";
import { designImagesCorrection } from "../context/design-images-correction.js";
import { screenshotsBlock } from "../context/screenshots-block.js";
import { stageContextImages } from "../context/stage-context-images.js";
import { type CommitAuthor, prepareCheckout } from "../git/checkout.js";
import { SandboxedCheckoutGit } from "../git/checkout-git.js";
import { GitCommandError, prepareHooksPath, type SpawnProcess } from "../git/git.js";
import { gitAuthEnvironment } from "../git/git-auth.js";
import { mergeRefused } from "../git/program-config-scan.js";
import { PublishRepository } from "../git/publish-repository.js";
import { type InstallOutcome, installNote, runDependencyInstall } from "../install/dependency-install.js";
import { writeJobNpmrc } from "../install/registry-auth.js";
import { composePassInstructions } from "../instructions/pass-instructions.js";
import { type InventoryMemo, jobInventory } from "../inventory/job-inventory.js";
import type { ServerMeasurements } from "../inventory/measurements.js";
import { PullRequestError } from "../pr/host/pull-request-error.js";
import { renderPrReport } from "../pr/pr-report.js";
import { openPullRequest, type PullRequestOutcome } from "../pr/pull-request-phase.js";
import { templateInstructions } from "../pr/template/instructions.js";
import { resolvePrTemplate } from "../pr/template/resolve-template.js";
import { BranchPusher } from "../push/branch-pusher.js";
import { JobFailure } from "../registry/job-failure.js";
import type { JobOutcome, JobRunner, JobWork } from "../registry/job-registry.js";
import { runReproduction } from "../reproduction/reproduction-phase.js";
import { mergeSalvage, type SalvageOutcome } from "../salvage/salvage.js";
import { sandboxVerdictOfError } from "../sandbox/sandbox-probe.js";
import type { EffortEstimate } from "../sentinels/effort.js";
import { readSentinels, type SentinelsReading } from "../sentinels/read-sentinels.js";
import { runValidation } from "../validation/validation-phase.js";
import { createJobWatch } from "../watch/job-watch.js";
import { ToolGuard } from "../watch/tool-guard.js";
import { commitBlueprints } from "./blueprint.js";
import { prepareBootstrapCheckout, publishBootstrap } from "./bootstrap.js";
import type { JobBody } from "./job-body.js";
import { type PassContext, runPass, type StoppedPass } from "./pass-runner.js";

/** The longest summary a result carries, in bytes. */
export const maxSummaryBytes = 16_384;

/** What the job runner needs from its server. */
export interface AgentJobOptions {
  readonly modelFactory: ModelFactory;
  /** The server's knobs: watchdogs, guard limits (a body may raise those), command timeouts and heartbeats. */
  readonly limits: ExecutorKnobs;
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
    /** Whether `DOCKER_HOST` is set, from the server's settings. */
    readonly dockerHostSet: boolean;
  };
  /** The identity of the server's commits, set in each checkout for the agent's too. */
  readonly commitAuthor: CommitAuthor;
  /** The user's npm config a job's `.npmrc` is seeded from. Default `npm_config_userconfig`, else `~/.npmrc`. */
  readonly npmUserConfig?: string;
  /** How long the last checkpoint of a job stopped mid-pass may take. Default 10,000 ms. */
  readonly finalCheckpointMs?: number;
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

/**
 * The server's job runner, by `work.kind`. A `coder` job, phase by phase: a shallow
 * single-branch clone (the work branch's tip on a resume) [clone]; the dependency install
 * [install]; the PR template resolved, context files staged and an agent pass [agent], then
 * salvage [salvage]; the reproduction proof and its repair passes [reproduction]; validation
 * and its repair passes [validation]; the final push [push]; the pull request [pr]. Every
 * repair pass is a fresh agent pass followed by salvage; pushes are checkpointed and
 * lease-guarded throughout. `bootstrap` starts from its reference (or nothing) and ends in a
 * new history force-pushed to the target; `blueprint` ends in a commit of `blueprints/` only.
 * Resolves `{ result }` or `{ error }` with a scrubbed message; the checkout and secrets never
 * outlive the job.
 */
export function agentJob(options: AgentJobOptions): JobRunner {
  return async (work: JobWork): Promise<JobOutcome> => {
    const body = work.body as JobBody;
    const mode = work.kind === "bootstrap" || work.kind === "blueprint" ? work.kind : "coder";
    const { redactor } = work;
    const limits = options.limits;
    // Every line this job logs is scrubbed of its credentials first.
    const log = (entry: { readonly kind: string; readonly [field: string]: unknown }) =>
      options.log?.(redactor.scrubJson(entry));
    const checkout = join(work.directory, "checkout");
    const home = join(work.directory, "home");
    const hooksPath = join(work.directory, "hooks");
    // The server's own: its git's home, the publish repository, the private copies of bundles.
    // The sandbox may write only the exchange directory (bundles) and the proof's worktrees.
    const serverHome = join(work.directory, "server-home");
    const exchange = join(work.directory, "exchange");
    const proofDirectory = join(work.directory, "proof");
    let checkoutGit: SandboxedCheckoutGit | undefined;
    const stopped: StoppedPass = {};
    let refusedGitConfig: RefusedGitConfig[] = [];
    const branch = body.repo.workBranch ?? `castellan/${work.jobId}`;
    const firstPass = work.resumedFrom ? `resume-${work.resumedFrom.count}` : "initial";
    let coldStart: number | undefined;
    const watch = createJobWatch(limits, {
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
      await makePrivateDirectory(serverHome);
      await rm(exchange, { recursive: true, force: true });
      await makePrivateDirectory(exchange);
      await rm(proofDirectory, { recursive: true, force: true });
      await makePrivateDirectory(proofDirectory);
      const commandVariables: Record<string, string> = {};
      if (body.packageRegistries && body.packageRegistries.length > 0) {
        commandVariables.npm_config_userconfig = await writeJobNpmrc({
          home,
          registries: body.packageRegistries,
          ...(options.npmUserConfig ? { userConfig: options.npmUserConfig } : {}),
        });
      }
      if (body.artifactUpload) {
        commandVariables.ARTIFACT_UPLOAD_URL = body.artifactUpload.url;
        commandVariables.ARTIFACT_UPLOAD_TOKEN = body.artifactUpload.token;
      }
      // The server's git gets a home of its own (the job's is the sandbox's to write), no global
      // config, and nothing of the commands' seams.
      const gitEnv = {
        ...resolveEnvironmentPolicy(jobEnvironmentPolicy(serverHome), "the job's git").environmentFor(),
        XDG_CONFIG_HOME: serverHome,
        GIT_CONFIG_GLOBAL: "/dev/null",
      };
      const environment = jobEnvironmentPolicy(home, commandVariables);
      const git = { env: gitEnv, hooksPath, redactor, signal, ...(options.spawn ? { spawn: options.spawn } : {}) };

      await work.update({ phase: "clone" });
      // Bootstrap starts from its reference (or nothing) and publishes a new history at its end;
      // the others clone the target and publish the work branch as they go.
      const prepared =
        mode === "bootstrap"
          ? await prepareBootstrapCheckout({
              checkout,
              cwd: work.directory,
              reference: body.reference,
              referenceAuth: gitAuthEnvironment(body.reference?.token, redactor),
              author: options.commitAuthor,
              git,
            }).then(({ startSha }) => ({ baseSha: startSha, startSha, onExistingBranch: false }))
          : await prepareCheckout({
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
      if (prepared.baseSha !== undefined && prepared.baseSha !== work.baseSha) {
        await work.update({ baseSha: prepared.baseSha });
      }
      watch.activity();
      const publish = new PublishRepository({
        directory: join(work.directory, "publish.git"),
        exchange,
        staging: join(work.directory, "staging"),
        git,
      });
      // The checkout is still as the server cloned it: the one time git reads it on the host.
      if (mode !== "bootstrap") await publish.seedFromPristine(checkout, prepared.baseSha ? [prepared.baseSha] : []);
      const filesystem = { denyRead: [...options.protectedPaths], allowRead: [checkout, home], allowWrite: [home] };
      const jobCommands = { environment, network: body.network, filesystem };
      // From here on, git on the checkout runs in the job's sandbox only (docs/architecture.md, "Trust boundary").
      checkoutGit = new SandboxedCheckoutGit({
        commands: {
          root: checkout,
          environment: jobEnvironmentPolicy(home),
          filesystem: {
            ...filesystem,
            allowRead: [...filesystem.allowRead, exchange, proofDirectory],
            allowWrite: [...filesystem.allowWrite, exchange, proofDirectory],
          },
        },
        redactor,
        signal,
      });
      const sandboxGit = checkoutGit;
      const pusher =
        mode === "bootstrap"
          ? undefined
          : new BranchPusher({
              checkout: sandboxGit,
              publish,
              url: body.repo.url,
              branch,
              auth: gitAuthEnvironment(body.repo.token, redactor),
              ...(prepared.onExistingBranch ? { remoteTip: prepared.startSha } : {}),
            });

      let install: InstallOutcome | undefined;
      if (body.dependencyInstall) {
        await work.update({ phase: "install" });
        install = await withJobCommands({ ...jobCommands, root: checkout, signal }, (runtime) =>
          runDependencyInstall({
            runtime,
            command: (body.dependencyInstall as { command: string }).command,
            git: sandboxGit,
            timeoutMs: limits.dependencyInstallTimeoutMs,
            heartbeatMs: limits.dependencyInstallHeartbeatMs,
            onHeartbeat: () => watch.activity(),
            scrub: (text) => redactor.scrub(text),
            signal,
          }),
        );
        log({ kind: "job-install-ended", jobId: work.jobId, status: install.status, exitCode: install.exitCode });
        watch.activity();
      }
      const installText = body.dependencyInstall
        ? installNote(body.dependencyInstall.command, install, (text) => redactor.scrub(text))
        : "";

      // The PR template, only with a pull request: folded into every pass.
      const notes: string[] = [];
      const resolution = body.pullRequest ? await resolvePrTemplate(checkout) : undefined;
      notes.push(...(resolution?.notes ?? []));
      const template = resolution?.template;

      const transcriptDirectory = join(options.transcriptRoot, `${work.jobId}.${randomBytes(4).toString("hex")}`);
      await makePrivateDirectory(transcriptDirectory);
      marker = join(transcriptDirectory, retainedMarker);
      await writeFile(marker, `${work.jobId}\n`, { mode: 0o600 });
      const guard = new ToolGuard({ ...limits, ...body.tuning?.guardLimits });
      // The body's skills and tool servers, materialised outside the checkout; nothing of the checkout's own is loaded.
      const skillsDirectory = join(work.directory, "skills");
      if (body.skills && body.skills.length > 0) await materializeSkills(skillsDirectory, body.skills);
      const capabilities = jobCapabilities({ skills: body.skills, mcpServers: body.mcpServers, skillsDirectory });
      for (const secret of capabilities.secrets) redactor.add(secret);
      // The inventory is measured once per job; later passes are told the same.
      let inventory: Promise<string> | undefined;
      const context: PassContext = {
        work,
        checkout,
        checkoutGit: sandboxGit,
        publish: pusher ? publish : undefined,
        stopped,
        watch,
        guard,
        signal,
        pusher,
        checkpointIntervalMs: limits.checkpointIntervalMs,
        finalCheckpointMs: options.finalCheckpointMs ?? 10_000,
        model: body.model as BodyModel,
        modelFactory: options.modelFactory,
        proxyPhasePath: body.proxyPhasePath === true,
        network: body.network,
        environment,
        filesystem,
        transcriptDirectory,
        taskDirectory: join(work.directory, "tasks"),
        redactor,
        salvage: mode === "coder",
        log,
        capabilities: () => capabilities.capabilities,
        plugins: capabilities.plugins,
        skills: capabilities.skillNames,
        ...(options.onEvent
          ? { onEvent: (pass: string, event: RunEvent) => options.onEvent?.(work.jobId, pass, event) }
          : {}),
        inventory: (probe) => {
          inventory ??= jobInventory({
            ...options.inventory,
            network: body.network,
            // Each probe feeds the inactivity watchdog, as a heartbeat would.
            probe: async (command, timeoutMs) => {
              const result = await probe(command, timeoutMs);
              watch.activity();
              return result;
            },
          });
          return inventory;
        },
      };

      const isTracked = async (path: string) => (await sandboxGit.run(["ls-files", "--", path])).trim() !== "";
      const stagings = new Map<ContextImageKind, ContextStaging>();
      /** Stages the context files before a pass (only misses are fetched again), and says what landed. */
      const contextBlocks = async (): Promise<string[]> => {
        const blocks: string[] = [];
        const specs = [
          ["reference-screenshots", body.referenceScreenshots],
          ["design-renders", body.designImages],
        ] as const;
        for (const [kind, spec] of specs) {
          if (!spec) continue;
          const staging = await stageContextImages({ checkout, kind, spec, signal, isTracked });
          stagings.set(kind, staging);
          watch.activity();
          const block = kind === "reference-screenshots" ? screenshotsBlock(staging) : designImagesCorrection(staging);
          if (block) blocks.push(block);
        }
        return blocks;
      };

      const salvages: SalvageOutcome[] = [];
      let repairs = 0;
      let lastText = "";
      // What the sentinels said: the latest usable briefing and effort, every new follow-up.
      let briefing: SentinelsReading["description"];
      let effort: EffortEstimate | undefined;
      const followUpsSeen = new Set<string>();
      const readAfterPass = async (name: string) => {
        const reading = await readSentinels(checkout, {
          titleFromHeading: template === undefined,
          scrub: (text) => redactor.scrub(text),
        });
        if (reading.description && body.pullRequest) briefing = reading.description;
        if (reading.effort) effort = reading.effort;
        for (const followUp of reading.followUps ?? []) {
          const key = JSON.stringify([followUp.title, followUp.detail ?? null]);
          if (followUpsSeen.has(key)) continue;
          followUpsSeen.add(key);
          work.telemetry.publishFollowUp({
            title: followUp.title,
            ...(followUp.detail !== undefined ? { detail: followUp.detail } : {}),
            pass: name,
          });
        }
        notes.push(...reading.notes.map((note) => `${name}: ${note}`));
      };
      /** One pass with everything every pass is told; a repair pass also gets why it runs. */
      const pass = async (repair?: string): Promise<void> => {
        const name = repair === undefined ? firstPass : `${firstPass}-repair-${++repairs}`;
        const context_ = await contextBlocks();
        let outcome: Awaited<ReturnType<typeof runPass>>;
        try {
          outcome = await runPass(context, name, (inventoryText) =>
            composePassInstructions({
              systemPrompt: body.systemPrompt,
              inventory: inventoryText,
              pullRequest: body.pullRequest !== undefined,
              ...(repair !== undefined
                ? { continuing: "repair" as const, repair }
                : work.resumedFrom
                  ? { continuing: "resumed" as const }
                  : {}),
              ...(installText ? { install: installText } : {}),
              ...(template ? { template: templateInstructions(template) } : {}),
              context: context_,
            }),
          );
        } finally {
          // What the checkout's config names is read after every pass, whether or not the pass (or its salvage) failed.
          const scanned = await sandboxGit.refusedConfig({ signal: AbortSignal.timeout(30_000) }).catch(() => []);
          refusedGitConfig = mergeRefused(refusedGitConfig, scanned);
        }
        lastText = outcome.text;
        if (outcome.salvage) salvages.push(outcome.salvage);
        await readAfterPass(name);
      };

      await pass();
      /** What every kind's result ends with: the agent's last answer, the install, the effort, the notes. */
      const closing = () => ({
        summary: cutUtf8(redactor.scrub(lastText), maxSummaryBytes).text,
        ...(install ? { install } : {}),
        ...(effort ? { effort } : {}),
        ...(notes.length > 0 ? { notes } : {}),
        ...(refusedGitConfig.length > 0 ? { refusedGitConfig } : {}),
      });

      if (mode === "bootstrap") {
        await work.update({ phase: "push" });
        const published = await publishBootstrap({
          git: sandboxGit,
          publish,
          targetUrl: body.repo.url,
          branch: body.repo.baseBranch,
          targetAuth: gitAuthEnvironment(body.repo.token, redactor),
          author: options.commitAuthor,
          message: `Bootstrap${body.reference ? " from the reference architecture" : ""} (Castellan executor, ${work.jobId})`,
        });
        return { result: redactor.scrubJson({ ...published, ...closing() }) as unknown as JsonValue };
      }
      if (mode === "blueprint") {
        await work.update({ phase: "push" });
        const blueprint = await commitBlueprints({
          git: sandboxGit,
          startSha: prepared.startSha,
          label: `${work.jobId}, ${firstPass}`,
        });
        const pushed = await (pusher as BranchPusher).push();
        return {
          result: redactor.scrubJson({
            branch,
            commit: blueprint.commit,
            headSha: pushed.sha,
            tree: blueprint.tree,
            ignoredChanges: blueprint.ignoredChanges,
            ...closing(),
          }) as unknown as JsonValue,
        };
      }

      const reproduction = body.reproduction
        ? await runReproduction({
            work,
            directory: proofDirectory,
            baseSha: prepared.baseSha as string,
            spec: body.reproduction,
            limits,
            git: sandboxGit,
            jobCommands,
            watch,
            scrub: (text) => redactor.scrub(text),
            signal,
            repair: (note) => pass(note),
          })
        : undefined;

      const validation = body.validationChecks
        ? await runValidation({
            work,
            checkout,
            spec: body.validationChecks,
            timeoutMs: limits.validationCommandTimeoutMs,
            jobCommands,
            watch,
            scrub: (text) => redactor.scrub(text),
            signal,
            repair: (note) => pass(note),
          })
        : undefined;

      await work.update({ phase: "push" });
      const pushed = await (pusher as BranchPusher).push();
      const salvage = mergeSalvage(salvages);
      const summary = cutUtf8(redactor.scrub(lastText), maxSummaryBytes).text;
      const facts = {
        ...(install ? { install } : {}),
        ...(salvage ? { salvage } : {}),
        ...(reproduction ? { reproduction } : {}),
        ...(validation ? { validation } : {}),
      };
      // The pull request, only after a green validation (or none).
      let pr: PullRequestOutcome | undefined;
      if (body.pullRequest && (!validation || validation.passed)) {
        await work.update({ phase: "pr" });
        try {
          pr = await openPullRequest({
            spec: body.pullRequest,
            token: body.repo.token as string,
            branch,
            baseBranch: body.repo.baseBranch,
            briefing,
            report: renderPrReport(facts),
            scrub: (text) => redactor.scrub(text),
            signal,
          });
        } catch (error) {
          if (!(error instanceof PullRequestError)) throw error;
          throw new JobFailure("pr-failed", error.message, {
            pr: { status: error.status ?? null },
            branch,
            headSha: pushed.sha,
          });
        }
      }
      const report = redactor.scrubJson({
        ...(pr ? { prUrl: pr.prUrl } : {}),
        branch,
        headSha: pushed.sha,
        summary,
        ...facts,
        ...(effort ? { effort } : {}),
        prDescriptionSource: briefing ? "agent" : "fallback",
        ...(pr ? { pullRequest: { number: pr.number, created: pr.created, refreshed: pr.refreshed } } : {}),
        ...(stagings.size > 0 ? { context: Object.fromEntries(stagings) } : {}),
        ...(notes.length > 0 ? { notes } : {}),
        ...(refusedGitConfig.length > 0 ? { refusedGitConfig } : {}),
      }) as unknown as Record<string, JsonValue>;
      if (validation && !validation.passed) {
        return {
          error: {
            code: "validation-failed",
            message:
              "Validation still failed after the repair passes; the branch keeps its checkpoints and no pull request was opened.",
            evidence: report,
          },
        };
      }
      return { result: report };
    } catch (error) {
      // A cold start is folded into whatever failure follows it.
      const failed = (code: string, message: string, evidence?: JsonValue): JobOutcome => {
        const extra = {
          ...(coldStart !== undefined ? { coldStart: { afterMs: coldStart } } : {}),
          ...(refusedGitConfig.length > 0 ? { refusedGitConfig } : {}),
        };
        const folded =
          Object.keys(extra).length === 0
            ? evidence
            : ({ ...(evidence as Record<string, JsonValue> | undefined), ...extra } as unknown as JsonValue);
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
      if (work.signal.aborted)
        return {
          error: { code: "aborted", message: "The job was stopped.", ...redactor.scrubJson(stoppedEvidence(stopped)) },
        };
      const failure = jobFailureOf(error, options.inventory.measurements);
      if (failure) return failed(failure.code, failure.message, failure.evidence);
      const message = errorMessage(error);
      return failed(error instanceof GitCommandError ? "git-failed" : "agent-failed", message);
    } finally {
      watch.dispose();
      await checkoutGit?.dispose().catch(() => undefined);
      // The retention period of the transcript runs from the job's end.
      if (marker) await utimes(marker, new Date(), new Date()).catch(() => undefined);
      await rm(checkout, { recursive: true, force: true });
      await rm(proofDirectory, { recursive: true, force: true });
      await rm(exchange, { recursive: true, force: true });
      await rm(join(work.directory, "staging"), { recursive: true, force: true });
      await rm(join(work.directory, "publish.git"), { recursive: true, force: true });
      await rm(join(work.directory, "skills"), { recursive: true, force: true });
      await rm(join(work.directory, "bootstrap.git"), { recursive: true, force: true });
      await rm(join(work.directory, "secrets"), { recursive: true, force: true });
      await rm(join(home, ".npmrc"), { force: true });
    }
  };
}

/** What a job stopped mid-pass kept, for its `aborted` error: salvage, then the last checkpoint. */
function stoppedEvidence(stopped: StoppedPass): { evidence?: JsonValue } {
  if (Object.keys(stopped).length === 0) return {};
  return { evidence: { stopped: stopped as unknown as JsonValue } };
}

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
