import { withJobCommands } from "../../commands/job-commands.js";
import { installNote, runDependencyInstall } from "../../install/dependency-install.js";
import type { JobRun } from "../run/job-run.js";

/**
 * Phase `install`, when the body asks for one: its command in the job's sandbox, on a command
 * runtime of its own, heartbeats feeding the inactivity watchdog. How it ended is in the result
 * and is told to every pass; a failed install does not fail the job.
 */
export async function installDependencies(run: JobRun): Promise<void> {
  const { work, body, redactor, signal } = run;
  const spec = body.dependencyInstall;
  if (!spec) return;
  const limits = run.options.limits;
  await work.update({ phase: "install" });
  const outcome = await withJobCommands({ ...run.jobCommands, root: run.directories.checkout, signal }, (runtime) =>
    runDependencyInstall({
      runtime,
      command: spec.command,
      git: run.cloned.git,
      timeoutMs: limits.dependencyInstallTimeoutMs,
      heartbeatMs: limits.dependencyInstallHeartbeatMs,
      onHeartbeat: () => run.watch.activity(),
      scrub: (text) => redactor.scrub(text),
      signal,
    }),
  );
  run.log({ kind: "job-install-ended", jobId: work.jobId, status: outcome.status, exitCode: outcome.exitCode });
  run.watch.activity();
  run.findings.install = { outcome, note: installNote(spec.command, outcome, (text) => redactor.scrub(text)) };
}
