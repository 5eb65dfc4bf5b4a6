import type { ToolReceipt } from "@castellan/harness";
import type { CommandOutcome } from "../../../platform/process/index.js";

/** The heading of the block {@link CommandObservations.render} writes. */
export const observationsHeading = "## Command observations";

/** The most handle lines one block lists; the rest are counted. */
export const maxObservationLines = 32;

/** What is observed of one yielded handle whose terminal report has not reached the model. */
export interface CommandObservation {
  readonly commandId: string;
  /** `unavailable`: rebuilt from history, with neither a live owner nor a receipt in the host's store. */
  readonly state: "running" | "terminal" | "unavailable";
  readonly outcome: CommandOutcome | null;
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** ISO 8601 as last reported, or null (a session command). */
  readonly deadline: string | null;
}

interface Entry {
  observation: CommandObservation;
  /** Higher is newer. */
  readonly order: number;
}

/**
 * Per Session, the yielded handles (an `exec_command` that returned `running`) until their
 * terminal report reaches the model. In memory only: rendered into each model request's
 * context, never saved in history; forgotten when the Session closes.
 */
export class CommandObservations {
  readonly #sessions = new Map<string, Map<string, Entry>>();
  #order = 0;

  /** Starts the Session afresh (at its sessionStart), with the handles rebuilt from its history, oldest first. */
  reset(sessionId: string, rebuilt: readonly CommandObservation[] = []): void {
    const entries = new Map<string, Entry>();
    for (const observation of rebuilt) entries.set(observation.commandId, { observation, order: ++this.#order });
    this.#sessions.set(sessionId, entries);
  }

  /** `exec_command` returned a running handle. */
  yielded(sessionId: string, observation: CommandObservation): void {
    let entries = this.#sessions.get(sessionId);
    if (!entries) {
      entries = new Map();
      this.#sessions.set(sessionId, entries);
    }
    entries.set(observation.commandId, { observation, order: ++this.#order });
  }

  /** A listed handle's command ended: its line turns terminal (nothing for a handle not listed). */
  ended(
    sessionId: string,
    commandId: string,
    end: { readonly outcome: CommandOutcome; readonly exitCode: number | null; readonly signal: string | null },
  ): void {
    const entry = this.#sessions.get(sessionId)?.get(commandId);
    if (!entry) return;
    entry.observation = {
      ...entry.observation,
      state: "terminal",
      outcome: end.outcome,
      exitCode: end.exitCode,
      signal: end.signal,
    };
  }

  /** A terminal report of the handle was returned to the model: it is no longer listed. */
  delivered(sessionId: string, commandId: string): void {
    this.#sessions.get(sessionId)?.delete(commandId);
  }

  /** The Session's listed handles, newest first. */
  list(sessionId: string): readonly CommandObservation[] {
    const entries = [...(this.#sessions.get(sessionId)?.values() ?? [])];
    return entries.sort((a, b) => b.order - a.order).map((entry) => entry.observation);
  }

  forget(sessionId: string): void {
    this.#sessions.delete(sessionId);
  }

  forgetAll(): void {
    this.#sessions.clear();
  }

  /** The block for the Session's next model request, or undefined when nothing is listed. */
  render(sessionId: string): string | undefined {
    const listed = this.list(sessionId);
    if (listed.length === 0) return undefined;
    const shown = listed.slice(0, maxObservationLines);
    const lines = [
      observationsHeading,
      'Commands whose exec_command returned a running handle, newest first, until their final report reaches you. Observations authorize nothing, and "running" says nothing about health.',
      ...shown.map(renderLine),
    ];
    const rest = listed.length - shown.length;
    if (rest > 0) lines.push(`- ${rest} more not listed`);
    return lines.join("\n");
  }
}

function renderLine(observation: CommandObservation): string {
  const none = (value: string | number | null) => (value === null ? "none" : String(value));
  return `- ${observation.commandId}: state ${observation.state}, outcome ${none(observation.outcome)}, exit code ${none(
    observation.exitCode,
  )}, signal ${none(observation.signal)}, deadline ${none(observation.deadline)}`;
}

/** `context` with `block` after it, a blank line between; just `block` when there is no context. */
export function appendContext(context: string, block: string): string {
  return context === "" ? block : `${context.replace(/\n+$/u, "")}\n\n${block}`;
}

/** What a saved receipt's command-session-report says, read defensively; undefined when it is none. */
export interface ReportFacts {
  readonly commandId: string;
  readonly state: "running" | "terminal";
  readonly deadline: string | null;
}

const commandIdPattern = /^cmd_[0-9a-f]{24}$/u;

/** The report in a receipt's result text, or undefined for an error result or anything that does not parse as one. */
export function reportOfReceipt(receipt: ToolReceipt): ReportFacts | undefined {
  const result = receipt?.result as { readonly isError?: unknown; readonly content?: unknown } | undefined;
  if (!result || result.isError === true || !Array.isArray(result.content) || result.content.length !== 1) {
    return undefined;
  }
  const block = result.content[0] as { readonly type?: unknown; readonly text?: unknown } | null;
  if (block?.type !== "text" || typeof block.text !== "string") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(block.text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const report = parsed as Record<string, unknown>;
  if (report.type !== "command-session-report") return undefined;
  if (typeof report.commandId !== "string" || !commandIdPattern.test(report.commandId)) return undefined;
  if (report.state !== "running" && report.state !== "terminal") return undefined;
  const deadline =
    typeof report.deadline === "string" && !Number.isNaN(Date.parse(report.deadline)) ? report.deadline : null;
  return { commandId: report.commandId, state: report.state, deadline };
}
