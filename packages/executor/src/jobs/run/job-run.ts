import type { JsonValue } from "@castellan/harness";
import type { RefusedGitConfig } from "@castellan/node-runner";
import type { ContextImageKind, ContextStaging } from "../../context/context-staging.js";
import type { SandboxedCheckoutGit } from "../../git/checkout-git.js";
import type { InstallOutcome } from "../../install/dependency-install.js";
import type { PrTemplate } from "../../pr/template/read-template.js";
import type { BranchPusher } from "../../push/branch-pusher.js";
import type { ReproductionReport } from "../../reproduction/reproduction.js";
import type { SalvageOutcome } from "../../salvage/salvage.js";
import type { EffortEstimate } from "../../sentinels/effort.js";
import type { SentinelsReading } from "../../sentinels/read-sentinels.js";
import type { ValidationReport } from "../../validation/validation.js";
import type { SharedBody } from "../body/body-fields.js";
import type { JobSetup } from "./job-setup.js";

/** What a clone phase leaves: the checkout's start and git on it in the job's sandbox. */
export interface ClonedCheckout {
  /** The commit the first pass starts from; none for a repository with no commit yet. */
  readonly startSha: string | undefined;
  /** The base branch's commit, recorded for a resume. */
  readonly baseSha: string | undefined;
  /** Git on the checkout, in the job's sandbox. */
  readonly git: SandboxedCheckoutGit;
}

/** A clone of the target's work branch, published as the job goes (checkpoints, then the push). */
export interface BranchCheckout extends ClonedCheckout {
  readonly startSha: string;
  readonly baseSha: string;
  readonly pusher: BranchPusher;
}

/**
 * What a job's phases find and the result is made of. Phases add to it in order; the result
 * is `report`, then the summary of the last pass, then the shared facts below.
 */
export interface JobFindings {
  /** The kind's own result fields, in the order phases set them (`branch`, `headSha`, `commit`...). */
  readonly report: Record<string, JsonValue>;
  /** What the install did, and the note every pass is told of it. */
  install?: { readonly outcome: InstallOutcome | undefined; readonly note: string };
  /** The pull request the job opens at its end: passes are told to brief it, with its template. */
  pullRequest?: { readonly template: PrTemplate | undefined };
  /** Every pass's salvage, in order. */
  readonly salvages: SalvageOutcome[];
  /** The reproduction proof's report. */
  reproduction?: ReproductionReport;
  /** The validation's report. */
  validation?: ValidationReport;
  /** The last pass's final answer. */
  lastText: string;
  /** The latest usable pull request briefing the sentinels gave. */
  briefing?: SentinelsReading["description"];
  /** The latest effort estimate the sentinels gave. */
  effort?: EffortEstimate;
  /** The context files staged for the passes, by kind. */
  readonly stagings: Map<ContextImageKind, ContextStaging>;
  /** Notes for the result: the template's, the sentinels'. */
  readonly notes: string[];
  /** Entries of the checkout's git config the server refused, over every pass. */
  refusedGitConfig: RefusedGitConfig[];
  /**
   * A failure a phase settled on without throwing (validation still red): the phases after it
   * that reach outward (the pull request) skip, and the job ends in this error with the
   * result as its evidence.
   */
  failure?: { readonly code: string; readonly message: string };
}

/**
 * What a phase after the clone is given: the setup, the cloned checkout, the findings so far,
 * and `pass`, one agent pass (a repair pass with `repair`, the note of why it runs).
 */
export interface JobRun<Body extends SharedBody = SharedBody, Cloned extends ClonedCheckout = ClonedCheckout>
  extends JobSetup<Body> {
  readonly cloned: Cloned;
  readonly findings: JobFindings;
  pass(repair?: string): Promise<void>;
}

/** One phase after the clone. */
export type JobStep<Body extends SharedBody = SharedBody, Cloned extends ClonedCheckout = ClonedCheckout> = (
  run: JobRun<Body, Cloned>,
) => Promise<void>;

/** The phase that makes the checkout: phase `clone`. */
export type ClonePhase<Body extends SharedBody, Cloned extends ClonedCheckout> = (
  setup: JobSetup<Body>,
) => Promise<Cloned>;
