import { type FileHandle, open, readFile } from "node:fs/promises";

/** A timed step of a job: a tool call, or a phase. */
export interface Span {
  readonly seq: number;
  readonly kind: "tool" | "phase";
  readonly name: string;
  readonly pass: string | null;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly ok: boolean;
}

/** Work the agent suggests for later (the job's follow-ups). */
export interface FollowUp {
  readonly seq: number;
  readonly title: string;
  readonly detail?: string;
  readonly pass: string | null;
}

/** One model call, published once its stream ended: a drained call is final. */
export interface CallMetric {
  readonly seq: number;
  readonly pass: string;
  readonly model: string;
  readonly turn: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly costUsd?: number;
  readonly durationMs: number;
  readonly outcome: "completed" | "failed" | "aborted";
}

/** What one read of a job's telemetry takes. */
export interface DrainedTelemetry {
  readonly spans: readonly Span[];
  readonly followUps: readonly FollowUp[];
  readonly callMetrics: readonly CallMetric[];
  /** Spans dropped (the oldest) since the last read, because more than 10,000 waited. */
  readonly droppedSpans: number;
}

type Channel = "spans" | "followUps" | "callMetrics";

type Line =
  | { readonly type: "entry"; readonly channel: Channel; readonly entry: { readonly seq: number } }
  | { readonly type: "drain"; readonly channel: Channel; readonly upTo: number };

/** The most spans kept undrained; older ones are dropped and counted. */
export const maxUndrainedSpans = 10_000;

type Unsequenced<Entry> = Omit<Entry, "seq">;

/**
 * A job's drain-on-read telemetry. Every entry is appended to `telemetry.jsonl` (0600) as it is
 * published, and every read appends its drain cursors, so a server that dies keeps what no read
 * took and a restarted one hands exactly that out. Reads are synchronous: concurrent readers
 * partition the entries, each reaching exactly one. `seq` is per job and channel, across passes
 * and restarts. The complete list of model calls is kept for the job's result (never dropped).
 */
export class JobTelemetry {
  private readonly pending: { spans: Span[]; followUps: FollowUp[]; callMetrics: CallMetric[] } = {
    spans: [],
    followUps: [],
    callMetrics: [],
  };
  private readonly next: Record<Channel, number> = { spans: 1, followUps: 1, callMetrics: 1 };
  private readonly calls: CallMetric[] = [];
  private dropped = 0;
  private writes: Promise<void> = Promise.resolve();
  private readonly queued: string[] = [];
  /** The file, open while it is being written to; closed after a quiet second. */
  private handle: FileHandle | undefined;
  private idle: ReturnType<typeof setTimeout> | undefined;

  private constructor(private readonly file: string) {}

  /** Opens a job's telemetry file, restoring what was published and not drained. */
  static async open(file: string): Promise<JobTelemetry> {
    const telemetry = new JobTelemetry(file);
    let text = "";
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    const drained: Record<Channel, number> = { spans: 0, followUps: 0, callMetrics: 0 };
    const entries: Extract<Line, { type: "entry" }>[] = [];
    for (const raw of text.split("\n")) {
      if (raw.trim() === "") continue;
      let line: Line;
      try {
        line = JSON.parse(raw) as Line;
      } catch {
        continue; // A torn last line of a killed process.
      }
      if (line.type === "drain") drained[line.channel] = Math.max(drained[line.channel], line.upTo);
      else entries.push(line);
    }
    for (const { channel, entry } of entries) {
      telemetry.next[channel] = Math.max(telemetry.next[channel], entry.seq + 1);
      if (channel === "callMetrics") telemetry.calls.push(entry as CallMetric);
      if (entry.seq > drained[channel]) (telemetry.pending[channel] as { seq: number }[]).push(entry);
    }
    return telemetry;
  }

  publishSpan(span: Unsequenced<Span>): void {
    const entry = this.sequence("spans", span) as Span;
    this.pending.spans.push(entry);
    if (this.pending.spans.length > maxUndrainedSpans) {
      this.pending.spans.shift();
      this.dropped += 1;
    }
  }

  publishFollowUp(followUp: Unsequenced<FollowUp>): void {
    this.pending.followUps.push(this.sequence("followUps", followUp) as FollowUp);
  }

  publishCall(call: Unsequenced<CallMetric>): void {
    const entry = this.sequence("callMetrics", call) as CallMetric;
    this.pending.callMetrics.push(entry);
    this.calls.push(entry);
  }

  /** Takes everything published since the last read. */
  drain(): DrainedTelemetry {
    const taken: DrainedTelemetry = {
      spans: this.pending.spans.splice(0),
      followUps: this.pending.followUps.splice(0),
      callMetrics: this.pending.callMetrics.splice(0),
      droppedSpans: this.dropped,
    };
    this.dropped = 0;
    for (const channel of ["spans", "followUps", "callMetrics"] as const) {
      const last = taken[channel].at(-1);
      if (last) this.append({ type: "drain", channel, upTo: last.seq });
    }
    return taken;
  }

  /** Every model call of the job, in order, drained or not. */
  allCalls(): readonly CallMetric[] {
    return [...this.calls];
  }

  /** Resolves once every line so far is written. */
  flush(): Promise<void> {
    return this.writes;
  }

  /** Writes what is queued and closes the file; a later line opens it again. */
  close(): Promise<void> {
    clearTimeout(this.idle);
    // In the write chain, so no write is ever under way on a handle being closed.
    this.writes = this.writes
      .catch(() => undefined)
      .then(async () => {
        const handle = this.handle;
        this.handle = undefined;
        await handle?.close();
      });
    return this.writes;
  }

  private sequence(channel: Channel, value: object): { seq: number } {
    const entry = { seq: this.next[channel], ...value };
    this.next[channel] += 1;
    this.append({ type: "entry", channel, entry });
    return entry;
  }

  private append(line: Line): void {
    this.queued.push(`${JSON.stringify(line)}\n`);
    if (this.queued.length > 1) return;
    // Lines published together go out in one write: the first schedules it, the rest join it.
    this.writes = this.writes
      .catch(() => undefined)
      .then(async () => {
        const text = this.queued.splice(0).join("");
        if (!this.handle) {
          this.handle = await open(this.file, "a", 0o600);
          // The mode open() gives a new file is masked by the umask; it is 0600 whatever that is.
          await this.handle.chmod(0o600);
        }
        await this.handle.write(text);
        // A polled job writes a cursor every few hundred ms: the file stays open meanwhile.
        clearTimeout(this.idle);
        this.idle = setTimeout(() => void this.close(), 1_000);
        this.idle.unref();
      });
  }
}
