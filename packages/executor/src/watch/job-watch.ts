import type { JsonValue } from "@castellan/harness";
import { JobFailure } from "../registry/job-failure.js";

/** The watchdog and guard settings a job runs under. */
export interface WatchLimits {
  readonly jobMaxDurationMs: number;
  readonly jobInactivityMs: number;
  /** 0 disables it. */
  readonly jobToolSilenceMs: number;
  /** 0 disables it. */
  readonly jobColdStartMs: number;
}

/** Why a watched job was stopped: the code the job fails with, and what was seen. */
export interface WatchFailure {
  readonly code: string;
  readonly message: string;
  readonly evidence: JsonValue;
}

/** The watchdogs of one job, from its start (the queue excluded). */
export interface JobWatch {
  /** Aborted when a watchdog or the guard stops the job; its reason is a `JobFailure` of the failure (`failure` on it too). */
  readonly signal: AbortSignal;
  readonly failure: WatchFailure | undefined;
  /** Any Run event, command output or heartbeat. */
  activity(): void;
  /** The model produced output (ends the cold-start window). */
  modelOutput(): void;
  /** A tool call completed (its name, for the evidence). */
  toolCompleted(name: string): void;
  /** An agent pass began: the tool-silence window opens, and the first one starts the cold-start window. */
  passStarted(): void;
  /** The pass ended: tool silence is not watched outside passes. */
  passEnded(): void;
  /** Stops the job with a failure of the caller's (the guard's). */
  fail(code: string, message: string, extra?: Readonly<Record<string, JsonValue>>): void;
  /** Clears every timer. */
  dispose(): void;
}

/**
 * Creates the watchdogs: the ceiling (`watchdog-max-duration`, any phase), inactivity
 * (`watchdog-inactivity`), tool silence during agent passes (`watchdog-tool-silence`: the model
 * produced output in a window and no tool call completed in it) and the cold-start diagnostic (no model
 * output `jobColdStartMs` after the first pass began: reported through `onColdStart`, no kill).
 */
export function createJobWatch(
  limits: WatchLimits,
  hooks: { readonly onColdStart?: (afterMs: number) => void; readonly now?: () => number } = {},
): JobWatch {
  const now = hooks.now ?? Date.now;
  const controller = new AbortController();
  const startedAt = now();
  let lastActivityAt = startedAt;
  let failure: WatchFailure | undefined;
  let toolCalls = 0;
  let modelOutputs = 0;
  const lastTools: string[] = [];
  let coldStartTimer: ReturnType<typeof setTimeout> | undefined;
  let coldStartArmed = false;
  let silenceTimer: ReturnType<typeof setTimeout> | undefined;
  let activityInWindow = false;

  const evidence = (extra: Readonly<Record<string, JsonValue>> = {}): JsonValue => ({
    elapsedMs: now() - startedAt,
    lastActivityAt: new Date(lastActivityAt).toISOString(),
    toolCalls,
    modelOutputs,
    lastToolCalls: [...lastTools],
    ...extra,
  });

  function fail(code: string, message: string, extra?: Readonly<Record<string, JsonValue>>): void {
    if (failure) return;
    failure = { code, message, evidence: evidence(extra) };
    dispose();
    // An Error, so what reads the reason (a tool cut short, a Run's ending) says why in words.
    controller.abort(Object.assign(new JobFailure(code, message, failure.evidence), { failure }));
  }

  const ceiling = setTimeout(
    () => fail("watchdog-max-duration", `The job ran past its ${limits.jobMaxDurationMs} ms ceiling.`),
    limits.jobMaxDurationMs,
  );
  let inactivity = setTimeout(onInactive, limits.jobInactivityMs);
  function onInactive(): void {
    fail("watchdog-inactivity", `Nothing happened for ${limits.jobInactivityMs} ms.`);
  }

  function openSilenceWindow(): void {
    if (silenceTimer) clearTimeout(silenceTimer);
    silenceTimer = undefined;
    activityInWindow = false;
    if (limits.jobToolSilenceMs <= 0 || failure) return;
    silenceTimer = setTimeout(() => {
      // A quiet pass is inactivity's to judge; only one whose model kept producing output without a completed call is silent.
      if (activityInWindow) {
        fail("watchdog-tool-silence", `Output came for ${limits.jobToolSilenceMs} ms but no tool call completed.`);
      } else openSilenceWindow();
    }, limits.jobToolSilenceMs);
  }

  function dispose(): void {
    clearTimeout(ceiling);
    clearTimeout(inactivity);
    if (silenceTimer) clearTimeout(silenceTimer);
    if (coldStartTimer) clearTimeout(coldStartTimer);
    silenceTimer = undefined;
    coldStartTimer = undefined;
  }

  return {
    signal: controller.signal,
    get failure() {
      return failure;
    },
    activity() {
      if (failure) return;
      lastActivityAt = now();
      clearTimeout(inactivity);
      inactivity = setTimeout(onInactive, limits.jobInactivityMs);
    },
    modelOutput() {
      modelOutputs += 1;
      activityInWindow = true;
      if (coldStartTimer) clearTimeout(coldStartTimer);
      coldStartTimer = undefined;
    },
    toolCompleted(name) {
      toolCalls += 1;
      lastTools.push(name);
      if (lastTools.length > 5) lastTools.shift();
      if (silenceTimer) openSilenceWindow();
    },
    passStarted() {
      openSilenceWindow();
      if (!coldStartArmed && limits.jobColdStartMs > 0 && modelOutputs === 0) {
        coldStartArmed = true;
        coldStartTimer = setTimeout(() => {
          coldStartTimer = undefined;
          if (modelOutputs === 0) hooks.onColdStart?.(limits.jobColdStartMs);
        }, limits.jobColdStartMs);
      }
    },
    passEnded() {
      if (silenceTimer) clearTimeout(silenceTimer);
      silenceTimer = undefined;
    },
    fail,
    dispose,
  };
}
