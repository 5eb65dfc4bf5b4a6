import type { HostedToolSpec, HostedToolStreamEvent, RunEvent } from "@castellan/harness";
import { ModelCallError } from "../errors/errors.js";
import type { HostedToolActivityRecord } from "../store/records.js";

/** How much of a hosted call the Session keeps: what was searched and found, never page content. */
export const hostedActivityLimits = Object.freeze({ queries: 8, sources: 50, titleCharacters: 300 });

type Source = HostedToolActivityRecord["sources"][number];

function boundedQueries(queries: readonly unknown[]): string[] {
  return queries.filter((query): query is string => typeof query === "string").slice(0, hostedActivityLimits.queries);
}

/** Cuts a title at 300 characters without splitting a surrogate pair. */
function boundedTitle(title: string): string {
  if (title.length <= hostedActivityLimits.titleCharacters) return title;
  const code = title.charCodeAt(hostedActivityLimits.titleCharacters - 1);
  const end =
    code >= 0xd800 && code <= 0xdbff ? hostedActivityLimits.titleCharacters - 1 : hostedActivityLimits.titleCharacters;
  return title.slice(0, end);
}

function boundedSources(sources: readonly unknown[]): Source[] {
  const kept: Source[] = [];
  for (const source of sources) {
    if (kept.length === hostedActivityLimits.sources) break;
    const { url, title } = (source ?? {}) as { url?: unknown; title?: unknown };
    if (typeof url !== "string" || url.length === 0) continue;
    kept.push(typeof title === "string" && title.length > 0 ? { url, title: boundedTitle(title) } : { url });
  }
  return kept;
}

interface Activity {
  readonly callId: string;
  readonly toolName: string;
  readonly hostedKind: string;
  queries: string[];
  sources: Source[];
  ended?: { readonly ok: boolean; readonly errorCode?: string };
}

/**
 * The hosted tool calls of one model call, in stream order: turns the adapters' `hosted-tool`
 * events into `hosted-tool-start` / `hosted-tool-end` Run events and, once the answer is
 * complete, into the `hosted-tool-activity` records saved with it.
 */
export class HostedActivityTracker {
  private readonly activities = new Map<string, Activity>();

  constructor(
    private readonly hostedTools: readonly HostedToolSpec[],
    private readonly scope: { readonly runId: string; readonly turn: number; readonly specifier: string },
  ) {}

  /** Folds one stream event in and returns the Run events it stands for, in order. */
  observe(event: HostedToolStreamEvent): RunEvent[] {
    const { runId, turn, specifier } = this.scope;
    if (typeof event.callId !== "string" || event.callId.length === 0 || typeof event.kind !== "string") {
      throw new ModelCallError(`Model "${specifier}" sent a hosted-tool event without a callId or kind.`);
    }
    const status = event.status;
    if (status !== "started" && status !== "completed" && status !== "failed") {
      throw new ModelCallError(`Model "${specifier}" sent a hosted-tool event with status ${JSON.stringify(status)}.`);
    }
    const queries = boundedQueries(Array.isArray(event.queries) ? event.queries : []);
    const sources = boundedSources(Array.isArray(event.sources) ? event.sources : []);
    const events: RunEvent[] = [];
    let activity = this.activities.get(event.callId);
    if (!activity) {
      // An end without a start still opens the call first, so every end follows its start.
      const toolName = this.hostedTools.find((spec) => spec.hosted.kind === event.kind)?.name ?? event.kind;
      activity = { callId: event.callId, toolName, hostedKind: event.kind, queries, sources };
      this.activities.set(event.callId, activity);
      events.push({
        kind: "hosted-tool-start",
        runId,
        turn,
        callId: event.callId,
        toolName,
        hostedKind: event.kind,
        queries,
      });
    } else if (activity.ended) {
      throw new ModelCallError(`Model "${specifier}" sent hosted-tool call "${event.callId}" after it ended.`);
    }
    if (queries.length > 0) activity.queries = queries;
    if (sources.length > 0) activity.sources = sources;
    if (status === "started") return events;
    activity.ended = {
      ok: status === "completed",
      ...(status === "failed" && typeof event.errorCode === "string" ? { errorCode: event.errorCode } : {}),
    };
    events.push(this.endEvent(activity));
    return events;
  }

  /** Ends the calls the provider never finished (as failed) and returns their end events. */
  finish(): RunEvent[] {
    const events: RunEvent[] = [];
    for (const activity of this.activities.values()) {
      if (activity.ended) continue;
      activity.ended = { ok: false };
      events.push(this.endEvent(activity));
    }
    return events;
  }

  /** The records to save with the turn's answer, in the order the calls started. */
  records(): HostedToolActivityRecord[] {
    return [...this.activities.values()].map((activity) => ({ kind: "hosted-tool-activity", ...this.facts(activity) }));
  }

  private endEvent(activity: Activity): RunEvent {
    return { kind: "hosted-tool-end", ...this.facts(activity) };
  }

  /** What the record and the end event both say of a call. */
  private facts(activity: Activity): Omit<HostedToolActivityRecord, "kind"> {
    const { runId, turn } = this.scope;
    return {
      runId,
      turn,
      callId: activity.callId,
      toolName: activity.toolName,
      hostedKind: activity.hostedKind,
      ok: activity.ended?.ok ?? false,
      queries: activity.queries,
      sources: activity.sources,
      ...(activity.ended?.errorCode !== undefined ? { errorCode: activity.ended.errorCode } : {}),
    };
  }
}
