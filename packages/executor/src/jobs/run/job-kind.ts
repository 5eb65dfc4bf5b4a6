import type { JsonValue } from "@castellan/harness";
import { cutUtf8 } from "@castellan/harness";
import type { z } from "zod";
import type { JobOutcome, JobWorkFields } from "../../registry/job-registry.js";
import { mergeSalvage } from "../../salvage/salvage.js";
import type { BodySchemaSettings, SharedBody } from "../body/body-fields.js";
import type { AgentJobOptions } from "./agent-job-options.js";
import { failedOutcome } from "./job-outcome.js";
import { jobPasses } from "./job-passes.js";
import type { ClonedCheckout, ClonePhase, JobFindings, JobRun, JobStep } from "./job-run.js";
import { type JobSetup, openJobSetup } from "./job-setup.js";
import type { StoppedPass } from "./pass-runner.js";

/** The longest summary a result carries, in bytes. */
export const maxSummaryBytes = 16_384;

/**
 * A job kind's phases: the clone that makes its checkout, whether each agent pass is followed
 * by the server's salvage, and the phases after the clone in order (the install, the first
 * pass, and the kind's ends: reproduction, validation, push, pull request, or its own).
 */
export interface JobPhases<Body extends SharedBody, Cloned extends ClonedCheckout> {
  readonly clone: ClonePhase<Body, Cloned>;
  /** Whether the server commits what each pass left uncommitted (phase `salvage`), a stopped pass's included. */
  readonly salvage: boolean;
  readonly steps: readonly JobStep<Body, Cloned>[];
}

/** One kind of job, as written in the table: the route that submits it, its body's schema, its phases. */
export interface JobKindDefinition<Body extends SharedBody, Cloned extends ClonedCheckout> {
  /** The path segment of `POST /<route>`; unique among the kinds. */
  readonly route: string;
  /** The body's schema, strict at every level, its credentials marked (`credentialValue`). */
  readonly bodySchema: (settings: BodySchemaSettings) => z.ZodType<Body>;
  readonly phases: JobPhases<Body, Cloned>;
}

/** A kind as the server holds it: its route and schema, and its phases bound into `run`. */
export interface JobKind<Body extends SharedBody> {
  readonly route: string;
  readonly bodySchema: (settings: BodySchemaSettings) => z.ZodType<Body>;
  /** Runs one job of this kind to its outcome; never rejects. */
  run(work: JobWorkFields, body: Body, options: AgentJobOptions): Promise<JobOutcome>;
}

/** Binds a kind's phases: the typed checkout its clone makes is what its later phases are given. */
export function defineJobKind<Body extends SharedBody, Cloned extends ClonedCheckout>(
  definition: JobKindDefinition<Body, Cloned>,
): JobKind<Body> {
  const { phases } = definition;
  return {
    route: definition.route,
    bodySchema: definition.bodySchema,
    run: (work, body, options) => runPhases(phases, work, body, options),
  };
}

/**
 * One job, phase by phase: the setup, the clone, each step in order; then the result (the
 * kind's report, the last pass's summary, the shared facts) or, for a failure a phase settled
 * on, that error with the result as evidence. A phase that throws ends the job in
 * `failedOutcome`. The setup is closed whatever happened.
 */
async function runPhases<Body extends SharedBody, Cloned extends ClonedCheckout>(
  phases: JobPhases<Body, Cloned>,
  work: JobWorkFields,
  body: Body,
  options: AgentJobOptions,
): Promise<JobOutcome> {
  const stopped: StoppedPass = {};
  const findings: JobFindings = {
    report: {},
    salvages: [],
    lastText: "",
    stagings: new Map(),
    notes: [],
    refusedGitConfig: [],
  };
  let setup: JobSetup<Body> | undefined;
  try {
    setup = await openJobSetup(work, body, options);
    const cloned = await phases.clone(setup);
    const pass = jobPasses(setup, cloned, findings, { salvage: phases.salvage, stopped });
    const run: JobRun<Body, Cloned> = { ...setup, cloned, findings, pass };
    for (const step of phases.steps) await step(run);
    return outcomeOf(run);
  } catch (error) {
    return failedOutcome(error, {
      redactor: work.redactor,
      signal: work.signal,
      stopped,
      refusedGitConfig: findings.refusedGitConfig as unknown as JsonValue[],
      ...(setup ? { watch: setup.watch, coldStart: setup.coldStart() } : {}),
      ...(options.inventory.measurements ? { measurements: options.inventory.measurements } : {}),
    });
  } finally {
    await setup?.close();
  }
}

/** The result of a job whose phases all ran: scrubbed; an error with it as evidence when a phase settled on a failure. */
function outcomeOf(run: JobRun): JobOutcome {
  const { findings, redactor } = run;
  const salvage = mergeSalvage(findings.salvages);
  const result = redactor.scrubJson({
    ...findings.report,
    summary: cutUtf8(redactor.scrub(findings.lastText), maxSummaryBytes).text,
    ...(findings.install?.outcome ? { install: findings.install.outcome } : {}),
    ...(salvage ? { salvage } : {}),
    ...(findings.reproduction ? { reproduction: findings.reproduction } : {}),
    ...(findings.validation ? { validation: findings.validation } : {}),
    ...(findings.effort ? { effort: findings.effort } : {}),
    ...(findings.stagings.size > 0 ? { context: Object.fromEntries(findings.stagings) } : {}),
    ...(findings.notes.length > 0 ? { notes: findings.notes } : {}),
    ...(findings.refusedGitConfig.length > 0 ? { refusedGitConfig: findings.refusedGitConfig } : {}),
  }) as unknown as Record<string, JsonValue>;
  if (findings.failure) return { error: { ...findings.failure, evidence: result } };
  return { result };
}
