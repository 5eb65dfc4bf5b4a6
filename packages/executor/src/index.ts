export { type AgentPassOptions, runAgentPass } from "./agent/agent-pass.js";
export {
  type BodyModel,
  defaultModelFactory,
  type ModelFactory,
  type PassInfo,
  passBaseUrl,
} from "./agent/model-factory.js";
export { executorMain } from "./cli/executor-main.js";
export { executorVersion } from "./config/executor-version.js";
export { jobEnvironmentPolicy } from "./config/job-environment.js";
export { type ExecutorKnobs, knobVariables, resolveKnobs } from "./config/knobs.js";
export {
  type ExecutorServerOptions,
  minTokenLength,
  type ResolvedExecutorOptions,
  resolveExecutorOptions,
} from "./config/options.js";
export {
  type EgressVerdict,
  egressCommand,
  egressProbeTimeoutMs,
  probeEgress,
} from "./egress/egress-probe.js";
export { type EgressTarget, parseEgressTarget } from "./egress/egress-target.js";
export {
  ExecutorConfigError,
  type ExecutorErrorCode,
  type ExecutorErrorField,
  ExecutorRequestError,
  type ExecutorWireCode,
  executorWireCodes,
} from "./errors/errors.js";
export {
  type CommitAuthor,
  contextDirectory,
  type PreparedCheckout,
  prepareCheckout,
  sentinelFiles,
} from "./git/checkout.js";
export {
  type CheckoutGit,
  type CheckoutGitCallOptions,
  SandboxedCheckoutGit,
  type SandboxedCheckoutGitOptions,
} from "./git/checkout-git.js";
export { GitCommandError, type GitContext, prepareHooksPath, runGit, type SpawnProcess } from "./git/git.js";
export { gitAuthEnvironment } from "./git/git-auth.js";
export { mergeRefused, scanProgramConfig } from "./git/program-config-scan.js";
export { defaultMaxBundleBytes, PublishRepository, type PublishRepositoryOptions } from "./git/publish-repository.js";
export type { HealthView } from "./http/health.js";
export { maxBodyBytes } from "./http/read-json.js";
export { createExecutorServer, type ExecutorServer } from "./http/server.js";
export {
  type DockerFinding,
  type InventoryChecks,
  inventoryBlock,
  inventoryHeading,
  type ProbeBounds,
  probeBounds,
  probeDocker,
  probedTools,
  probeTools,
  type ToolFinding,
} from "./inventory/environment-inventory.js";
export {
  createInventoryMemo,
  type InventoryMemo,
  type JobInventoryOptions,
  jobInventory,
  liveSandboxProbeMs,
  type ToolsEntry,
  toolMemoMs,
} from "./inventory/job-inventory.js";
export { type HealthMeasurement, measurement, ServerMeasurements } from "./inventory/measurements.js";
export { type AgentJobOptions, agentJob, maxSummaryBytes, retainedMarker } from "./jobs/agent-job.js";
export { type BlueprintBody, blueprintBodySchema } from "./jobs/body/blueprint-body.js";
export { type BodySchemaSettings, maxCommandBytes, type SharedBody } from "./jobs/body/body-fields.js";
export { type BootstrapBody, bootstrapBodySchema } from "./jobs/body/bootstrap-body.js";
export { type CoderBody, coderBodySchema, runKinds } from "./jobs/body/coder-body.js";
export { outOfScopeFields, parseJobBody } from "./jobs/body/parse-job-body.js";
export {
  type JobBodySchemas,
  type JobKindBodies,
  type JobKindName,
  jobBodySchemas,
  jobCredentialFields,
  jobKindNames,
  jobKinds,
  kindOfRoute,
  kindRoutes,
} from "./jobs/kinds.js";
export { type SweepReport, sweepRetained } from "./jobs/retention-sweep.js";
export { defineJobKind, type JobKind, type JobKindDefinition, type JobPhases } from "./jobs/run/job-kind.js";
export type { BranchCheckout, ClonedCheckout, ClonePhase, JobFindings, JobRun, JobStep } from "./jobs/run/job-run.js";
export type { JobDirectories, JobSetup } from "./jobs/run/job-setup.js";
export { createRedactor, type Redactor } from "./log/redactor.js";
export type { ProbeRun, ProbeRunner } from "./probes/probe-runner.js";
export {
  type CredentialFields,
  type CredentialMark,
  credentialEntries,
  credentialFieldsOf,
  credentialMarks,
  credentialValue,
} from "./registry/credential-fields.js";
export { bodyWithoutCredentials, canonicalJson, credentialsOf, jobIdentity } from "./registry/identity.js";
export { JobFailure } from "./registry/job-failure.js";
export { isJobId, jobIdPattern } from "./registry/job-id.js";
export {
  type JobError,
  type JobPhase,
  type JobProgress,
  type JobRecord,
  type JobRoute,
  type JobState,
  type JobSummary,
  jobStates,
  terminalStates,
} from "./registry/job-record.js";
export {
  createJobRegistry,
  type JobBodies,
  type JobBodyBase,
  type JobOutcome,
  type JobRegistry,
  type JobRegistryOptions,
  type JobRunner,
  type JobWork,
  type JobWorkFields,
  type Submission,
  type SubmittedJob,
} from "./registry/job-registry.js";
export {
  isCredentialName,
  isDeniedPath,
  maxSalvagedBytes,
  maxSalvagedFiles,
  type SalvageOutcome,
  salvage,
} from "./salvage/salvage.js";
export { type BootCheckOptions, runBootSandboxCheck, type SandboxBootRecord } from "./sandbox/boot-check.js";
export { type ProbeSessionOptions, withProbeSession } from "./sandbox/probe-session.js";
export { probeSandbox, type SandboxVerdict, sandboxVerdictOfError } from "./sandbox/sandbox-probe.js";
export { JobEventLog, type JobEventSink } from "./telemetry/event-log.js";
export {
  bufferedJobEvents,
  type JobEvent,
  JobEventStream,
  type JobEventStreamOptions,
  maxClientLagBytes,
} from "./telemetry/job-events.js";
export {
  type CallMetric,
  type DrainedTelemetry,
  type FollowUp,
  JobTelemetry,
  maxUndrainedSpans,
  type Span,
} from "./telemetry/job-telemetry.js";
export { runRecorder } from "./telemetry/run-recorder.js";
export { createJobWatch, type JobWatch, type WatchFailure, type WatchLimits } from "./watch/job-watch.js";
export { familyOf, type GuardLimits, type GuardVerdict, type ToolFamily, ToolGuard } from "./watch/tool-guard.js";
