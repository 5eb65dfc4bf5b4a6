import type { ContentBlock, JsonObject, RunResult } from "@castellan/harness";
import { CastellanError, isContentBlock } from "@castellan/harness";
import { ResourceError, SessionStateError } from "../errors.js";
import { executeRun } from "../run/execute-run.js";
import { type Run, RunHandle } from "../run/run.js";
import type { AdmittedSession } from "./admit.js";

/** Options of one Run. */
export interface RunOptions {
  /** Aborting it stops the model stream and running tools; the Run settles with `run_aborted`. */
  readonly signal?: AbortSignal;
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
  /** Starts a Run. Throws `run_active` while another Run is active and `session_closed` after close. */
  run(input: RunInput, options?: RunOptions): Run;
  /** Waits for the active Run to settle, then releases every resource in reverse order. Idempotent. */
  close(): Promise<void>;
}

/** The Session implementation behind `createSession` and `openSession`. */
export class NodeSession implements Session {
  readonly id: string;
  readonly params: JsonObject;
  private readonly lifetime = new AbortController();
  private active: Promise<RunResult> | undefined;
  private closing: Promise<void> | undefined;
  private readonly closeHooks: (() => Promise<void> | void)[] = [];

  constructor(
    private readonly admitted: AdmittedSession,
    private readonly options: { readonly signal?: AbortSignal },
  ) {
    this.id = admitted.core.sessionId;
    this.params = admitted.core.params;
  }

  /** Runs `hook` after the Session has released its resources, in registration order (Runner bookkeeping). */
  afterClose(hook: () => Promise<void> | void): void {
    this.closeHooks.push(hook);
  }

  get signal(): AbortSignal {
    return this.lifetime.signal;
  }

  run(input: RunInput, options: RunOptions = {}): Run {
    if (this.closing) throw new SessionStateError("session_closed", `Session "${this.id}" is closed.`);
    if (this.active) throw new SessionStateError("run_active", `Session "${this.id}" already has an active Run.`);
    const content = normalizeInput(input);
    const signals = [options.signal, this.options.signal].filter(
      (signal): signal is AbortSignal => signal !== undefined,
    );
    const signal = signals.length === 1 ? (signals[0] as AbortSignal) : AbortSignal.any(signals);
    const runId = crypto.randomUUID();
    let active: Promise<RunResult> | undefined;
    const run = new RunHandle(runId, async (emit) => {
      try {
        return await executeRun(this.admitted.core, { runId, input: content, signal }, emit);
      } finally {
        // Cleared before `result` settles, so whoever awaits it can start the next Run at once.
        if (this.active === active) this.active = undefined;
      }
    });
    active = run.result;
    this.active = active;
    return run;
  }

  close(): Promise<void> {
    this.closing ??= this.release();
    return this.closing;
  }

  private async release(): Promise<void> {
    await this.active?.catch(() => undefined);
    this.lifetime.abort(new SessionStateError("session_closed", `Session "${this.id}" closed.`));
    const failures: unknown[] = [];
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
  if (Array.isArray(input) && input.length > 0 && input.every(isContentBlock))
    return input.map((block) => ({ ...block }));
  throw new CastellanError("input_invalid", "A Run's input must be a string or a non-empty array of content blocks.");
}
