import { chmod, appendFile as fsAppendFile, readFile } from "node:fs/promises";
import { writePrivateFileAtomically } from "@castellan/node-runner";
import type { JobEvent } from "./job-events.js";

/** What a job's event stream hands each published event to, with the ring it now retains. */
export interface JobEventSink {
  append(event: JobEvent, retained: readonly JobEvent[]): void;
}

/**
 * A job's events on disk, `jobs/<jobId>/events.jsonl` (0600): one `{ seq, kind, data }` line
 * per event, appended as it is published, so the ids a client saw stay the job's for its whole
 * life, a restarted server included. The file is rewritten atomically with just the retained
 * ring once it holds `compactAfter` lines (default 2,000; at least the ring's size), which
 * bounds it at about twice the ring whatever the job publishes.
 */
export class JobEventLog implements JobEventSink {
  private writes: Promise<void> = Promise.resolve();
  private queued: string[] = [];
  private lines: number;
  private rewriteWith: readonly JobEvent[] | undefined;
  private created: boolean;
  private scheduled = false;
  private torn = false;

  private constructor(
    private readonly file: string,
    existing: number,
    private readonly compactAfter: number,
  ) {
    this.lines = existing;
    this.created = existing > 0;
  }

  /**
   * Reads a job's event file: the last `keep` events in order, and a log that appends to it.
   * A missing file is an empty log; a torn last line (a killed server) is skipped.
   */
  static async open(
    file: string,
    keep: number,
    compactAfter = 2 * keep,
  ): Promise<{ readonly events: JobEvent[]; readonly log: JobEventLog }> {
    let text = "";
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    const events: JobEvent[] = [];
    let lines = 0;
    for (const raw of text.split("\n")) {
      if (raw.trim() === "") continue;
      lines += 1;
      try {
        const event = JSON.parse(raw) as JobEvent;
        if (Number.isSafeInteger(event.seq) && typeof event.kind === "string") events.push(event);
      } catch {
        // A torn line of a killed process: the events before it still count.
      }
    }
    const log = new JobEventLog(file, text === "" ? 0 : lines, Math.max(compactAfter, keep));
    // A torn last line gets its own line ended first, so the next event is never glued to it.
    log.torn = text !== "" && !text.endsWith("\n");
    return { events: events.slice(-keep), log };
  }

  append(event: JobEvent, retained: readonly JobEvent[]): void {
    this.lines += 1;
    if (this.lines >= this.compactAfter) {
      // The rewrite holds every event queued so far, so what was queued before it is dropped.
      this.rewriteWith = [...retained];
      this.queued = [];
      this.lines = retained.length;
    } else {
      this.queued.push(`${JSON.stringify(event)}\n`);
    }
    if (this.scheduled) return;
    // Events published together go out in one write: the first schedules it, the rest join it.
    this.scheduled = true;
    this.writes = this.writes
      .catch(() => undefined)
      .then(() => {
        this.scheduled = false;
        return this.write();
      });
  }

  /** Resolves once every event so far is on disk. */
  flush(): Promise<void> {
    return this.writes.catch(() => undefined);
  }

  private async write(): Promise<void> {
    const rewrite = this.rewriteWith;
    this.rewriteWith = undefined;
    if (rewrite) {
      await writePrivateFileAtomically(this.file, rewrite.map((event) => `${JSON.stringify(event)}\n`).join(""));
      this.created = true;
      this.torn = false;
    }
    const queued = this.queued.splice(0).join("");
    if (queued === "") return;
    const text = this.torn ? `\n${queued}` : queued;
    this.torn = false;
    await fsAppendFile(this.file, text, { mode: 0o600 });
    if (!this.created) {
      // The mode a new file gets is masked by the umask; it is 0600 whatever that is.
      await chmod(this.file, 0o600);
      this.created = true;
    }
  }
}
