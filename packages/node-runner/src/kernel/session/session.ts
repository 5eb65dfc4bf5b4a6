import type {
  BindingHandle,
  Capability,
  ContentBlock,
  JsonObject,
  JsonValue,
  ModelBinding,
  RunResult,
  Tool,
} from "@castellan/harness";
import { CastellanError, errorMessage, isContentBlock } from "@castellan/harness";
import { checkUsageBudget } from "../context/options.js";
import { selectModel } from "../context/session-model.js";
import type { UsageBudget } from "../context/usage-budget.js";
import {
  InputDuplicateError,
  InvalidOptionsError,
  ResourceError,
  SessionHookError,
  SessionStateError,
} from "../errors/errors.js";
import type { UsageReport } from "../history/usage-ledger.js";
import type { ToolApprovalAnswer } from "../permissions/types.js";
import { admitStatePatch, assertReservedWriter } from "../run/batch-state.js";
import { type CompactionOutcome, compactConversation } from "../run/compaction.js";
import { executeRun, type RunMode } from "../run/execute-run.js";
import { type Run, RunHandle } from "../run/run.js";
import type { AdmittedSession } from "./admit.js";
import { compactionStatus, type SessionInspection } from "./inspection.js";
import { type InterruptedRun, interruptedRunOf, type PendingApproval, pendingApprovalsOf } from "./interruption.js";

/** Options of one Run. */
export interface RunOptions {
  /** Aborting it stops the model stream and running tools; the Run settles with `run_aborted`. */
  readonly signal?: AbortSignal;
  /** Stops the Run before a model call once it has spent this much. Default: the Runner's `budget`, if any. */
  readonly budget?: UsageBudget;
  /**
   * The model of this Run: a registered name (or one the Runner's resolver resolves) or a
   * binding. A name nobody registers is refused with `model_not_found` before the Run starts;
   * it never falls back to the declared model. Default: the agent's declared model.
   */
  readonly model?: string | ModelBinding;
  /**
   * Skills to activate before the Run's first projection (as `activate_skill` would, recorded
   * with source `host`). A skill unknown or hidden in that turn ends the Run with
   * `skill_not_available`, a failing load with `skill_load_failed`, before the model is asked.
   * Default: none.
   */
  readonly activateSkills?: readonly string[];
  /**
   * The host's identity for this input: an opaque string of 1-256 characters, saved with the
   * input and shown on `run-start`. An id already in the Session's history is refused with
   * `input_duplicate` before anything is saved. Default: none.
   */
  readonly inputId?: string;
}

/** Options of `session.resume`. */
export interface ResumeOptions extends RunOptions {
  /**
   * Run again the interrupted calls of tools declared `idempotent: true` (with the same
   * `ctx.idempotencyKey`). Other calls that may have run are settled as "outcome unknown".
   * Default false.
   */
  readonly retryIdempotent?: boolean;
}

/** What a Run is given: text, or ordered content blocks. */
export type RunInput = string | readonly ContentBlock[];

/** An open Session: one conversation with its history, resources and one Run at a time. */
export interface Session {
  readonly id: string;
  /** The Session's parameters, deeply frozen. */
  readonly params: JsonObject;
  /** Aborted once the Session has closed. */
  readonly signal: AbortSignal;
  /**
   * Starts a Run. A Run left unfinished by a stopped process is first settled as interrupted.
   * Throws `run_active` while another Run is active and `session_closed` after close.
   */
  run(input: RunInput, options?: RunOptions): Run;
  /**
   * The Run that can be resumed, with what settled and what did not: one a stopped process left
   * unfinished (`status: "interrupted"`), or the latest Run when it was aborted and no Run has
   * started since (`status: "aborted"`). Undefined when there is none.
   */
  interruptedRun(): InterruptedRun | undefined;
  /**
   * Continues the interrupted or aborted Run under its own id: calls that may have run are
   * settled as outcome unknown (or, for an idempotent tool with `retryIdempotent`, run again),
   * calls that never started are decided and run, then the turn loop goes on. Throws
   * `nothing_to_resume` when there is no such Run.
   */
  resume(options?: ResumeOptions): Run;
  /** Approval requests saved and not answered (e.g. left by a process that exited while asking). */
  pendingApprovals(): readonly PendingApproval[];
  /** Saves an answer to a pending approval request; `resume()` then acts on it. */
  answerApproval(toolCallId: string, answer: ToolApprovalAnswer): Promise<void>;
  /** Queues a state write for the next turn; resolves once it is saved. */
  setState(key: string, value: JsonValue): Promise<void>;
  /** Summarizes the older conversation now (the Session must be idle). Undefined when there is nothing to compact. */
  compact(options?: { readonly signal?: AbortSignal }): Promise<CompactionOutcome | undefined>;
  /** Every model call's usage, totalled per Session, Run and model. */
  usage(): UsageReport;
  /** A frozen view of the accepted declaration, projections and state; readable after close. */
  inspect(): SessionInspection;
  /** Waits for the active Run and saved writes, then releases every resource in reverse order. Idempotent. */
  close(): Promise<void>;
}

/** A bound local tool and the scope its calls see. @internal */
export interface BoundToolScope {
  readonly tool: Tool;
  readonly scope: {
    readonly sessionId: string;
    readonly sandbox: unknown;
    readonly resources: readonly BindingHandle[];
  };
}

/** The Session implementation behind `createSession` and `openSession`. */
export class NodeSession implements Session {
  readonly id: string;
  readonly params: JsonObject;
  private readonly lifetime = new AbortController();
  private active: Promise<unknown> | undefined;
  private readonly writes = new Set<Promise<unknown>>();
  private closing: Promise<void> | undefined;
  private readonly closeHooks: (() => Promise<void> | void)[] = [];

  constructor(
    private readonly admitted: AdmittedSession,
    private readonly options: { readonly signal?: AbortSignal; readonly budget?: UsageBudget },
  ) {
    this.id = admitted.context.sessionId;
    this.params = admitted.context.params;
    // Findable by the Runner's hooks (host.sessions) until its resources are released.
    admitted.registry.sessions.add(this);
    this.afterClose(() => admitted.registry.sessions.remove(this));
  }

  /** Runs `hook` after the Session has released its resources, in registration order (Runner bookkeeping). */
  afterClose(hook: () => Promise<void> | void): void {
    this.closeHooks.push(hook);
  }

  get signal(): AbortSignal {
    return this.lifetime.signal;
  }

  run(input: RunInput, options: RunOptions = {}): Run {
    this.assertIdle();
    const content = normalizeInput(input);
    if (options.inputId !== undefined) this.checkInputId(options.inputId);
    return this.start(
      crypto.randomUUID(),
      { kind: "new", input: content, ...(options.inputId !== undefined ? { inputId: options.inputId } : {}) },
      options,
    );
  }

  /** Refuses a malformed input id, or one already in history or queued (`input_duplicate`), before anything is saved. */
  private checkInputId(inputId: unknown, queued?: { holds(inputId: string): boolean }): void {
    if (typeof inputId !== "string" || inputId.length < 1 || inputId.length > 256) {
      throw new InvalidOptionsError("inputId must be a string of 1-256 characters.");
    }
    if (this.admitted.history.inputIds.has(inputId) || queued?.holds(inputId)) {
      throw new InputDuplicateError(inputId, this.id);
    }
  }

  interruptedRun(): InterruptedRun | undefined {
    return this.active ? undefined : interruptedRunOf(this.admitted.history, (name) => this.isIdempotent(name));
  }

  resume(options: ResumeOptions = {}): Run {
    this.assertIdle();
    const interrupted = interruptedRunOf(this.admitted.history);
    if (!interrupted) {
      throw new SessionStateError("nothing_to_resume", `Session "${this.id}" has no interrupted or aborted Run.`);
    }
    return this.start(
      interrupted.runId,
      { kind: "resume", retryIdempotent: options.retryIdempotent ?? false },
      options,
    );
  }

  pendingApprovals(): readonly PendingApproval[] {
    return pendingApprovalsOf(this.admitted.history);
  }

  answerApproval(toolCallId: string, answer: ToolApprovalAnswer): Promise<void> {
    if (this.closing) return Promise.reject(new SessionStateError("session_closed", `Session "${this.id}" is closed.`));
    const pending = this.pendingApprovals().find((request) => request.toolCallId === toolCallId);
    if (!pending || this.active) {
      return Promise.reject(
        new SessionStateError(
          "approval_not_pending",
          `No saved approval request for call "${toolCallId}" awaits an answer.`,
        ),
      );
    }
    if (answer?.decision !== "allow" && answer?.decision !== "deny") {
      return Promise.reject(
        new CastellanError("input_invalid", 'An approval answer needs decision "allow" or "deny".'),
      );
    }
    return this.track(
      this.admitted.context.journal.commit([
        {
          kind: "approval-answer",
          runId: pending.runId,
          toolCallId,
          decision: answer.decision,
          ...(answer.reason ? { reason: answer.reason } : {}),
        },
      ]),
    );
  }

  setState(key: string, value: JsonValue): Promise<void> {
    if (this.closing) return Promise.reject(new SessionStateError("session_closed", `Session "${this.id}" is closed.`));
    let changes: Readonly<Record<string, JsonValue>>;
    try {
      const program = this.admitted.context.program;
      assertReservedWriter({ [key]: value }, program.reservedState, "host", "session.setState");
      changes = admitStatePatch({ [key]: value }, program.initialState, "session.setState");
    } catch (error) {
      return Promise.reject(error);
    }
    return this.track(this.admitted.context.journal.commit([{ kind: "state-queued", changes }]));
  }

  async compact(options: { readonly signal?: AbortSignal } = {}): Promise<CompactionOutcome | undefined> {
    this.assertIdle();
    const context = this.admitted.context;
    const work = (async () => {
      const model = await context.model.resolve({
        sessionId: this.id,
        runId: "",
        signal: options.signal ?? this.signal,
      });
      // Outside a Run, compaction reports no events.
      return await compactConversation(
        context,
        context.journal.run(() => undefined),
        {
          reason: "manual",
          keepTokens: 0,
          sessionModel: model,
          signal: options.signal ?? new AbortController().signal,
        },
      );
    })();
    this.active = work;
    try {
      return await work;
    } finally {
      if (this.active === work) this.active = undefined;
    }
  }

  usage(): UsageReport {
    return this.admitted.history.usage.report();
  }

  inspect(): SessionInspection {
    const { context, history } = this.admitted;
    return this.admitted.inspection.inspect(
      this.id,
      {
        state: history.state.view(context.program.initialState),
        writes: history.state.committedWrites,
        pending: history.state.pending,
      },
      compactionStatus(context.contextBudget.contextWindow, this.admitted.lastModel() ?? context.model.known),
    );
  }

  close(): Promise<void> {
    this.closing ??= this.release();
    return this.closing;
  }

  /**
   * The local tool bound to `name` in this Session, with the scope its calls see (the Session's
   * sandbox and the declaring capability's resources); undefined for none or a hosted tool.
   * For Castellan's host helpers (`runSessionCommand`); not part of the Session interface.
   *
   * @internal
   */
  boundToolScope(name: string): BoundToolScope | undefined {
    const context = this.admitted.context;
    const bound = context.tools.get(name);
    if (bound?.kind !== "local") return undefined;
    const source = bound.entry.source;
    const resources = source.kind === "capability" ? (context.capabilityResources.get(source.name) ?? []) : [];
    return { tool: bound.tool, scope: { sessionId: this.id, sandbox: context.sandbox, resources } };
  }

  /** True once `close()` was called. @internal */
  get isClosing(): boolean {
    return this.closing !== undefined;
  }

  /** True while a Run (or a manual compaction) is active. @internal */
  get isActive(): boolean {
    return this.active !== undefined;
  }

  /** The capabilities the Session's agent declares, in declaration order (for Castellan's host helpers). @internal */
  declaredCapabilities(): readonly Capability[] {
    return this.admitted.context.program.agent.capabilities;
  }

  private isIdempotent(name: string): boolean {
    const bound = this.admitted.context.tools.get(name);
    return bound?.kind === "local" && bound.tool.idempotent;
  }

  private assertIdle(): void {
    if (this.closing) throw new SessionStateError("session_closed", `Session "${this.id}" is closed.`);
    if (this.active) throw new SessionStateError("run_active", `Session "${this.id}" already has an active Run.`);
  }

  private start(runId: string, mode: RunMode, options: RunOptions): Run {
    const signals = [options.signal, this.options.signal].filter(
      (signal): signal is AbortSignal => signal !== undefined,
    );
    const signal = signals.length === 1 ? (signals[0] as AbortSignal) : AbortSignal.any(signals);
    const budget =
      options.budget === undefined ? this.options.budget : checkUsageBudget(options.budget, "RunOptions.budget");
    const activate = options.activateSkills;
    if (activate !== undefined && (!Array.isArray(activate) || !activate.every((name) => typeof name === "string"))) {
      throw new InvalidOptionsError("RunOptions.activateSkills must be an array of skill names.");
    }
    const context = this.admitted.context;
    const model =
      options.model === undefined
        ? context.model
        : selectModel(options.model, this.admitted.registry, "The Run's model option names model");
    let active: Promise<RunResult> | undefined;
    const run = new RunHandle(
      runId,
      async (emit, joined, delivered) => {
        try {
          return await executeRun(
            context,
            {
              runId,
              mode,
              signal,
              joined,
              delivered,
              budget,
              model,
              ...(options.activateSkills ? { activateSkills: options.activateSkills } : {}),
            },
            emit,
          );
        } finally {
          // Cleared before `result` settles, so whoever awaits it can start the next Run at once.
          if (this.active === active) this.active = undefined;
        }
      },
      normalizeInput,
      (inputId, queued) => {
        // The Run's own input may not be saved yet: its id is taken all the same.
        if (mode.kind === "new" && typeof inputId === "string" && inputId === mode.inputId)
          throw new InputDuplicateError(inputId, this.id);
        this.checkInputId(inputId, queued);
      },
    );
    active = run.result;
    this.active = active;
    return run;
  }

  private track(write: Promise<void>): Promise<void> {
    this.writes.add(write);
    const forget = () => this.writes.delete(write);
    write.then(forget, forget);
    return write;
  }

  private async release(): Promise<void> {
    await this.active?.catch(() => undefined);
    await Promise.allSettled([...this.writes]);
    this.lifetime.abort(new SessionStateError("session_closed", `Session "${this.id}" closed.`));
    const failures: unknown[] = [];
    // sessionEnd hooks see the Session's resources still held; a failure skips none of them.
    const info = { agent: this.admitted.context.agent, sessionId: this.id };
    for (const { owner, hook } of this.admitted.sessionEnd) {
      try {
        await hook(info);
      } catch (error) {
        if (!failures.some((failure) => failure instanceof SessionHookError)) {
          failures.push(
            new SessionHookError(
              `The sessionEnd hook of ${owner} failed while Session "${this.id}" closed: ${errorMessage(error)}`,
              { cause: error },
            ),
          );
        }
      }
    }
    for (const step of [() => this.admitted.owner.releaseAll(), () => this.admitted.log?.close(), ...this.closeHooks]) {
      try {
        await step();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) {
      throw new ResourceError(`Closing Session "${this.id}" failed in ${failures.length} steps.`, {
        cause: new AggregateError(failures),
      });
    }
  }
}

function normalizeInput(input: RunInput): readonly ContentBlock[] {
  if (typeof input === "string") return [{ type: "text", text: input }];
  if (Array.isArray(input) && input.length > 0 && input.every(isContentBlock)) {
    return input.map((block) => ({ ...block }));
  }
  throw new CastellanError("input_invalid", "A Run's input must be a string or a non-empty array of content blocks.");
}
