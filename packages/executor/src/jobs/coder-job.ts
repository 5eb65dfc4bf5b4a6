import { randomBytes } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RunEvent } from "@castellan/harness";
import { resolveEnvironmentPolicy } from "@castellan/node-runner";
import { runAgentPass } from "../agent/agent-pass.js";
import type { BodyModel, ModelFactory } from "../agent/model-factory.js";
import { makePrivateDirectory } from "../files/private-files.js";
import { GitCommandError, prepareHooksPath, runGit } from "../git/git.js";
import { createRedactor } from "../redactor.js";
import { credentialsOf } from "./identity.js";
import type { JobBody } from "./job-body.js";
import { jobEnvironmentPolicy } from "./job-environment.js";
import type { JobOutcome, JobRunner, JobWork } from "./job-registry.js";

/** The longest summary a result carries, in bytes. */
export const maxSummaryBytes = 16_384;

/** What the coder job needs from its server. */
export interface CoderJobOptions {
  readonly modelFactory: ModelFactory;
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
    const redactor = createRedactor(credentialsOf(body));
    const checkout = join(work.directory, "checkout");
    const home = join(work.directory, "home");
    const hooksPath = join(work.directory, "hooks");
    const branch = body.repo.workBranch ?? `castellan/${work.jobId}`;
    const pass = work.resumedFrom ? `resume-${work.resumedFrom.count}` : "initial";
    try {
      await rm(checkout, { recursive: true, force: true });
      await makePrivateDirectory(home);
      await prepareHooksPath(hooksPath);
      const environment = jobEnvironmentPolicy(home);
      const env = resolveEnvironmentPolicy(environment, "the job's commands").environmentFor();
      const git = { env, hooksPath, redactor, signal: work.signal };

      await work.update({ phase: "clone" });
      await runGit(
        [
          "clone",
          "--depth",
          "1",
          "--single-branch",
          "--branch",
          body.repo.baseBranch,
          "--no-tags",
          body.repo.url,
          checkout,
        ],
        work.directory,
        git,
      );
      await runGit(["checkout", "-b", branch], checkout, git);

      await work.update({ phase: "agent", pass });
      const transcriptDirectory = join(options.transcriptRoot, `${work.jobId}.${randomBytes(4).toString("hex")}`);
      await makePrivateDirectory(transcriptDirectory);
      await writeFile(join(transcriptDirectory, retainedMarker), `${work.jobId}\n`, { mode: 0o600 });
      const { text } = await runAgentPass({
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
        redactor,
        signal: work.signal,
        ...(options.onEvent ? { onEvent: (event: RunEvent) => options.onEvent?.(work.jobId, pass, event) } : {}),
        onProgress: (progress) => void work.update({ progress }),
      });

      await work.update({ phase: "salvage" });
      await runGit(["add", "-A"], checkout, git);
      const status = await runGit(["status", "--porcelain"], checkout, git);
      if (status.trim() !== "") {
        await runGit(
          [
            "-c",
            "user.name=Castellan",
            "-c",
            "user.email=castellan@localhost",
            "commit",
            "--no-verify",
            "-m",
            `castellan: ${work.jobId} (${pass})`,
          ],
          checkout,
          git,
        );
      }

      await work.update({ phase: "push" });
      await runGit(["push", "--no-verify", "origin", `${branch}:refs/heads/${branch}`], checkout, git);
      return { result: { branch, summary: cutUtf8(redactor.scrub(text), maxSummaryBytes) } };
    } catch (error) {
      if (work.signal.aborted) return { error: { code: "aborted", message: "The job was stopped." } };
      const message = redactor.scrub(error instanceof Error ? error.message : String(error));
      const code = error instanceof GitCommandError ? "git-failed" : "agent-failed";
      return { error: { code, message } };
    } finally {
      await rm(checkout, { recursive: true, force: true });
      await rm(join(work.directory, "secrets"), { recursive: true, force: true });
    }
  };
}
