import type { Usage } from "@castellan/harness";

/** One model call's usage, attributed. */
export interface UsageEntry {
  readonly runId: string | undefined;
  readonly turn: number | undefined;
  /** The agent whose model made the call. */
  readonly agentId: string;
  readonly model: string;
  /** `turn` for a Run's model call, `compaction` for a summary request. */
  readonly purpose: "turn" | "compaction";
  readonly usage: Usage;
  /** For a child agent's call: the delegating call of this Session's Run. */
  readonly toolCallId?: string;
}

/** Totals of usage. `costUsd` is present only when every counted call reported a cost. */
export interface UsageTotals {
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly costUsd?: number;
  /** Provider-hosted web searches; present once a counted call reported them. */
  readonly webSearchRequests?: number;
}

/** What `session.usage()` returns: totals for the Session, per Run and per model, and every entry. */
export interface UsageReport {
  readonly total: UsageTotals;
  readonly byRun: Readonly<Record<string, UsageTotals>>;
  readonly byModel: Readonly<Record<string, UsageTotals>>;
  readonly entries: readonly UsageEntry[];
}

/** Adds usage into running totals. */
export class UsageTotalsBuilder {
  calls = 0;
  inputTokens = 0;
  outputTokens = 0;
  cacheReadTokens = 0;
  cacheWriteTokens = 0;
  costUsd: number | undefined = 0;
  webSearchRequests: number | undefined;

  add(usage: Usage): void {
    this.calls++;
    this.inputTokens += usage.inputTokens;
    this.outputTokens += usage.outputTokens;
    this.cacheReadTokens += usage.cacheReadTokens ?? 0;
    this.cacheWriteTokens += usage.cacheWriteTokens ?? 0;
    this.costUsd = usage.costUsd === undefined || this.costUsd === undefined ? undefined : this.costUsd + usage.costUsd;
    if (usage.webSearchRequests !== undefined) {
      this.webSearchRequests = (this.webSearchRequests ?? 0) + usage.webSearchRequests;
    }
  }

  freeze(): UsageTotals {
    const { calls, inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costUsd, webSearchRequests } = this;
    return Object.freeze({
      calls,
      inputTokens,
      outputTokens,
      cacheReadTokens,
      cacheWriteTokens,
      ...(costUsd === undefined || calls === 0 ? {} : { costUsd }),
      ...(webSearchRequests === undefined ? {} : { webSearchRequests }),
    });
  }
}

/** Every model call's usage in the Session, in order. */
export class UsageLedger {
  private readonly entries: UsageEntry[] = [];
  /** Running totals per Run, so a Run's spend is read in constant time before each model call. */
  private readonly runs = new Map<string, UsageTotalsBuilder>();

  record(entry: UsageEntry): void {
    this.entries.push(Object.freeze({ ...entry, usage: Object.freeze({ ...entry.usage }) }));
    if (entry.runId === undefined) return;
    let totals = this.runs.get(entry.runId);
    if (!totals) {
      totals = new UsageTotalsBuilder();
      this.runs.set(entry.runId, totals);
    }
    totals.add(entry.usage);
  }

  /**
   * What one Run has spent, from the same entries `report().byRun` sums, as a `Usage`: every
   * saved model call of the Run, in any process (a resumed Run includes what it spent before).
   */
  runUsage(runId: string): Usage {
    const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costUsd, webSearchRequests } = (
      this.runs.get(runId) ?? new UsageTotalsBuilder()
    ).freeze();
    return Object.freeze({
      inputTokens,
      outputTokens,
      cacheReadTokens,
      cacheWriteTokens,
      ...(costUsd === undefined ? {} : { costUsd }),
      ...(webSearchRequests === undefined ? {} : { webSearchRequests }),
    });
  }

  report(): UsageReport {
    const total = new UsageTotalsBuilder();
    const byRun = new Map<string, UsageTotalsBuilder>();
    const byModel = new Map<string, UsageTotalsBuilder>();
    const bucket = (map: Map<string, UsageTotalsBuilder>, key: string) => {
      let builder = map.get(key);
      if (!builder) {
        builder = new UsageTotalsBuilder();
        map.set(key, builder);
      }
      return builder;
    };
    for (const entry of this.entries) {
      total.add(entry.usage);
      if (entry.runId !== undefined) bucket(byRun, entry.runId).add(entry.usage);
      bucket(byModel, entry.model).add(entry.usage);
    }
    const freeze = (map: Map<string, UsageTotalsBuilder>) =>
      Object.freeze(Object.fromEntries([...map].map(([key, builder]) => [key, builder.freeze()])));
    return Object.freeze({
      total: total.freeze(),
      byRun: freeze(byRun),
      byModel: freeze(byModel),
      entries: Object.freeze([...this.entries]),
    });
  }
}
