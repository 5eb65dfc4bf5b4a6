import { rm, utimes } from "node:fs/promises";
import { join } from "node:path";
import {
  type EnvironmentPolicy,
  makePrivateDirectory,
  resolveEnvironmentPolicy,
  type SandboxFilesystemPolicy,
} from "@castellan/node-runner";
import type { JobCommandsOptions } from "../../commands/job-commands.js";
import { jobEnvironmentPolicy } from "../../config/job-environment.js";
import { SandboxedCheckoutGit } from "../../git/checkout-git.js";
import { type GitContext, prepareHooksPath } from "../../git/git.js";
import { PublishRepository } from "../../git/publish-repository.js";
import { writeJobNpmrc } from "../../install/registry-auth.js";
import type { Redactor } from "../../log/redactor.js";
import type { JobWorkFields } from "../../registry/job-registry.js";
import { createJobWatch, type JobWatch } from "../../watch/job-watch.js";
import type { SharedBody } from "../body/body-fields.js";
import type { AgentJobOptions } from "./agent-job-options.js";

/** The marker of a transcript directory the retention sweep may delete. */
export const retainedMarker = ".castellan-retained";

/** What a job leaves in its directory only while it runs. */
const jobScratch = ["checkout", "proof", "exchange", "staging", "publish.git", "skills", "bootstrap.git", "secrets"];

/** Where a job's files sit, all under its own directory `jobs/<jobId>/`. */
export interface JobDirectories {
  /** The checkout: the agent's and its commands' to write. */
  readonly checkout: string;
  /** The commands' home: theirs to write. */
  readonly home: string;
  /** The server git's empty hooks directory. */
  readonly hooks: string;
  /** The server git's own home (the job's is the sandbox's to write). */
  readonly serverHome: string;
  /** What the sandbox and the server hand each other: bundles. */
  readonly exchange: string;
  /** The reproduction proof's worktrees. */
  readonly proof: string;
  /** The task store of the job's passes. */
  readonly tasks: string;
  /** The body's skills, materialised outside the checkout. */
  readonly skills: string;
}

/**
 * What every phase of a job is given before its checkout exists: the work and its body, the
 * server's options, the job's directories, its watchdogs and signal, the server's git, the
 * commands' environment and file policy, and the publish repository. The clone phase opens
 * git on the checkout with {@link JobSetup.openCheckoutGit}.
 */
export interface JobSetup<Body extends SharedBody = SharedBody> {
  readonly work: JobWorkFields;
  readonly body: Body;
  readonly options: AgentJobOptions;
  readonly directories: JobDirectories;
  /** The work branch: the body's `repo.workBranch`, else `castellan/<jobId>`. */
  readonly branch: string;
  /** The first pass's name: `initial`, or `resume-<n>` on a resumed run. */
  readonly firstPass: string;
  readonly watch: JobWatch;
  /** The job's signal and its watchdogs' together. */
  readonly signal: AbortSignal;
  readonly redactor: Redactor;
  /** Logs one line, scrubbed of the job's credentials. */
  readonly log: (entry: { readonly kind: string; readonly [field: string]: unknown }) => void;
  /** The server's own git: a home of its own, no global config, nothing of the commands' seams. */
  readonly git: GitContext;
  /** The environment of the job's commands and of its agent's. */
  readonly environment: EnvironmentPolicy;
  /** What the job's commands may read and write. */
  readonly filesystem: SandboxFilesystemPolicy;
  /** The settings of the server's own commands for the job (install, validation, proof), without root and signal. */
  readonly jobCommands: Omit<JobCommandsOptions, "root" | "signal">;
  /** Where the checkout's commits are received and published from. */
  readonly publish: PublishRepository;
  /** The cold start the watch saw, if it did (folded into a failure's evidence). */
  readonly coldStart: () => number | undefined;
  /**
   * Git on the checkout in the job's sandbox, opened on the first call (after the clone, once
   * the checkout is as the server made it) and closed with the job.
   */
  openCheckoutGit(): SandboxedCheckoutGit;
  /** Marks the job's transcript directory for the retention sweep; its period runs from the job's end. */
  retain(marker: string): void;
  /**
   * Ends the setup: the watchdogs stop, git on the checkout closes, the transcript's retention
   * period starts, and the checkout, the proof, the exchange, the publish repository, the
   * skills and the secrets are removed (the checkout and secrets never outlive the job).
   */
  close(): Promise<void>;
}

/**
 * Prepares a job's directories (private, emptied where a stale run left something), its
 * `.npmrc` for the body's package registries, the commands' variables and environment, the
 * server's git and the watchdogs. Close it with `close()` whatever follows; a setup that fails
 * midway closes what it made and rejects.
 */
export async function openJobSetup<Body extends SharedBody>(
  work: JobWorkFields,
  body: Body,
  options: AgentJobOptions,
): Promise<JobSetup<Body>> {
  const { redactor } = work;
  const log = (entry: { readonly kind: string; readonly [field: string]: unknown }) =>
    options.log?.(redactor.scrubJson(entry));
  const directories: JobDirectories = {
    checkout: join(work.directory, "checkout"),
    home: join(work.directory, "home"),
    hooks: join(work.directory, "hooks"),
    serverHome: join(work.directory, "server-home"),
    exchange: join(work.directory, "exchange"),
    proof: join(work.directory, "proof"),
    tasks: join(work.directory, "tasks"),
    skills: join(work.directory, "skills"),
  };
  const { checkout, home, exchange, proof } = directories;
  let coldStart: number | undefined;
  const watch = createJobWatch(options.limits, {
    onColdStart: (afterMs) => {
      coldStart = afterMs;
      log({ kind: "job-cold-start", jobId: work.jobId, afterMs });
      void work.update({ diagnostics: { coldStart: { afterMs } } });
    },
  });
  const signal = AbortSignal.any([work.signal, watch.signal]);
  let checkoutGit: SandboxedCheckoutGit | undefined;
  let marker: string | undefined;
  const setup = {
    work,
    body,
    options,
    directories,
    branch: body.repo.workBranch ?? `castellan/${work.jobId}`,
    firstPass: work.resumedFrom ? `resume-${work.resumedFrom.count}` : "initial",
    watch,
    signal,
    redactor,
    log,
    coldStart: () => coldStart,
    retain: (path: string) => {
      marker = path;
    },
    close: async () => {
      watch.dispose();
      await checkoutGit?.dispose().catch(() => undefined);
      if (marker) await utimes(marker, new Date(), new Date()).catch(() => undefined);
      for (const name of jobScratch) await rm(join(work.directory, name), { recursive: true, force: true });
      await rm(join(home, ".npmrc"), { force: true });
    },
  };
  const commandVariables: Record<string, string> = {};
  try {
    await rm(checkout, { recursive: true, force: true });
    await makePrivateDirectory(home);
    // Made here, private, before the task store would make it with the umask's mode.
    await makePrivateDirectory(directories.tasks);
    await prepareHooksPath(directories.hooks);
    await makePrivateDirectory(directories.serverHome);
    await rm(exchange, { recursive: true, force: true });
    await makePrivateDirectory(exchange);
    await rm(proof, { recursive: true, force: true });
    await makePrivateDirectory(proof);
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
  } catch (error) {
    await setup.close();
    throw error;
  }
  const git: GitContext = {
    env: {
      ...resolveEnvironmentPolicy(jobEnvironmentPolicy(directories.serverHome), "the job's git").environmentFor(),
      XDG_CONFIG_HOME: directories.serverHome,
      GIT_CONFIG_GLOBAL: "/dev/null",
    },
    hooksPath: directories.hooks,
    redactor,
    signal,
    ...(options.spawn ? { spawn: options.spawn } : {}),
  };
  const environment = jobEnvironmentPolicy(home, commandVariables);
  const filesystem = { denyRead: [...options.protectedPaths], allowRead: [checkout, home], allowWrite: [home] };
  const publish = new PublishRepository({
    directory: join(work.directory, "publish.git"),
    exchange,
    staging: join(work.directory, "staging"),
    git,
  });
  return Object.assign(setup, {
    git,
    environment,
    filesystem,
    jobCommands: { environment, network: body.network, filesystem },
    publish,
    // From here on, git on the checkout runs in the job's sandbox only (docs/architecture.md, "Trust boundary").
    openCheckoutGit: () => {
      checkoutGit ??= new SandboxedCheckoutGit({
        commands: {
          root: checkout,
          environment: jobEnvironmentPolicy(home),
          filesystem: {
            ...filesystem,
            allowRead: [...filesystem.allowRead, exchange, proof],
            allowWrite: [...filesystem.allowWrite, exchange, proof],
          },
        },
        redactor,
        signal,
      });
      return checkoutGit;
    },
  });
}
