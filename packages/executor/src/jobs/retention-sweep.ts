import { readdir, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { isJobId } from "../registry/job-id.js";
import { retainedMarker } from "./run/job-setup.js";

/** What one sweep removed. */
export interface SweepReport {
  readonly jobs: readonly string[];
  readonly transcripts: readonly string[];
}

/**
 * Removes what the retention period is over for: job directories (records included) of jobs
 * that ended more than `ttlMs` ago, and transcript directories carrying the `.castellan-retained`
 * marker whose job ended (the marker's time) more than `ttlMs` ago. A directory without the
 * marker is never touched, so the transcript root may be shared.
 */
export async function sweepRetained(options: {
  readonly jobsDirectory: string;
  readonly transcriptRoot: string;
  readonly ttlMs: number;
  readonly now: number;
  /** Jobs still queued or running, whatever their files say. */
  readonly live: ReadonlySet<string>;
}): Promise<SweepReport> {
  const jobs: string[] = [];
  const transcripts: string[] = [];
  for (const entry of await readdir(options.jobsDirectory, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory() || !isJobId(entry.name) || options.live.has(entry.name)) continue;
    const directory = join(options.jobsDirectory, entry.name);
    let endedAt: number | undefined;
    try {
      const record = JSON.parse(await readFile(join(directory, "job.json"), "utf8")) as { endedAt?: string };
      endedAt = record.endedAt ? Date.parse(record.endedAt) : undefined;
    } catch {
      continue;
    }
    if (endedAt !== undefined && options.now - endedAt > options.ttlMs) {
      await rm(directory, { recursive: true, force: true });
      jobs.push(entry.name);
    }
  }
  for (const entry of await readdir(options.transcriptRoot, { withFileTypes: true }).catch(() => [])) {
    const match = /^(.+)\.[0-9a-f]{8}$/.exec(entry.name);
    if (!entry.isDirectory() || !match || options.live.has(match[1] as string)) continue;
    const directory = join(options.transcriptRoot, entry.name);
    const marker = await stat(join(directory, retainedMarker)).catch(() => undefined);
    if (!marker?.isFile()) continue;
    if (options.now - marker.mtimeMs > options.ttlMs) {
      await rm(directory, { recursive: true, force: true });
      transcripts.push(entry.name);
    }
  }
  return { jobs, transcripts };
}
