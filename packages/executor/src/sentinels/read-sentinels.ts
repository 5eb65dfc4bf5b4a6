import { type EffortEstimate, readEffort } from "./effort.js";
import { readFollowUps, type SuggestedFollowUp } from "./follow-ups.js";
import { type PrDescriptionOptions, readPrDescription } from "./pr-description.js";

/** What the agent left in the three sentinels; an absent field means the sentinel gave nothing usable. */
export interface SentinelsReading {
  /** The briefing for the PR; absent means the job's own title and description are kept. */
  readonly description?: { readonly title?: string; readonly body: string };
  readonly followUps?: readonly SuggestedFollowUp[];
  readonly effort?: EffortEstimate;
  /** For the job's result: why a sentinel was skipped, and any cut of the briefing. */
  readonly notes: readonly string[];
}

/**
 * Reads the PR description, follow-ups and effort sentinels at the root of `checkout`. An
 * invalid one is skipped with a note; none can fail the job. Every string of the follow-ups,
 * the effort and the notes goes through `options.scrub` too (the description already has).
 */
export async function readSentinels(checkout: string, options: PrDescriptionOptions): Promise<SentinelsReading> {
  const [description, followUps, effort] = await Promise.all([
    readPrDescription(checkout, options),
    readFollowUps(checkout),
    readEffort(checkout),
  ]);
  const scrub = options.scrub;
  const notes = [...description.notes];
  if (followUps.state === "invalid") notes.push(followUps.note);
  if (effort.state === "invalid") notes.push(effort.note);
  return {
    ...(description.state === "read"
      ? {
          description: {
            ...(description.title === undefined ? {} : { title: description.title }),
            body: description.body,
          },
        }
      : {}),
    ...(followUps.state === "read"
      ? {
          followUps: followUps.followUps.map((entry) => ({
            title: scrub(entry.title),
            ...(entry.detail === undefined ? {} : { detail: scrub(entry.detail) }),
          })),
        }
      : {}),
    ...(effort.state === "read"
      ? {
          effort: {
            level: effort.effort.level,
            ...(effort.effort.note === undefined ? {} : { note: scrub(effort.effort.note) }),
          },
        }
      : {}),
    notes: notes.map(scrub),
  };
}
