// The retention sweep: job directories and marked transcript directories of jobs that ended
// more than transcriptTtlMs ago go; recent ones, live jobs and anything without the marker
// stay. A server sweeps before it listens, so an expired job is gone from its registry.
import { existsSync } from "node:fs";
import { mkdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sweepRetained } from "../src/index.js";
import { send, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-retention-");
const hour = 3_600_000;

async function job(jobs: string, jobId: string, endedAt: number | undefined) {
  await mkdir(join(jobs, jobId), { recursive: true });
  const record = {
    formatVersion: 1,
    jobId,
    route: "run",
    kind: "coder",
    identity: "x",
    state: endedAt === undefined ? "running" : "succeeded",
    createdAt: new Date(0).toISOString(),
    ...(endedAt === undefined ? {} : { endedAt: new Date(endedAt).toISOString() }),
    body: {},
  };
  await writeFile(join(jobs, jobId, "job.json"), JSON.stringify(record));
}

async function transcript(root: string, name: string, markedAt: number | undefined) {
  await mkdir(join(root, name), { recursive: true });
  await writeFile(join(root, name, "a.jsonl"), "{}\n");
  if (markedAt === undefined) return;
  const marker = join(root, name, ".castellan-retained");
  await writeFile(marker, "job\n");
  await utimes(marker, new Date(markedAt), new Date(markedAt));
}

describe("the retention sweep", () => {
  it("removes what expired and keeps recent, live and unmarked directories", async () => {
    const now = Date.now();
    const jobs = join(temp.path, "jobs");
    const root = join(temp.path, "transcripts");
    await job(jobs, "old", now - 2 * hour);
    await job(jobs, "recent", now - 10 * 60_000);
    await job(jobs, "running", undefined);
    await job(jobs, "live", now - 2 * hour);
    await transcript(root, "old.0123abcd", now - 2 * hour);
    await transcript(root, "recent.0123abcd", now - 60_000);
    await transcript(root, "live.0123abcd", now - 2 * hour);
    await transcript(root, "unmarked.0123abcd", undefined);
    await mkdir(join(root, "someone-elses"), { recursive: true });
    const report = await sweepRetained({
      jobsDirectory: jobs,
      transcriptRoot: root,
      ttlMs: hour,
      now,
      live: new Set(["live"]),
    });
    expect(report).toEqual({ jobs: ["old"], transcripts: ["old.0123abcd"] });
    expect(existsSync(join(jobs, "old"))).toBe(false);
    for (const kept of ["recent", "running", "live"]) expect(existsSync(join(jobs, kept)), kept).toBe(true);
    for (const kept of ["recent.0123abcd", "live.0123abcd", "unmarked.0123abcd", "someone-elses"]) {
      expect(existsSync(join(root, kept)), kept).toBe(true);
    }
  });

  it("runs before the server listens: an expired job is no longer known", async () => {
    const data = join(temp.path, "data");
    await job(join(data, "jobs"), "expired", Date.now() - 5 * hour);
    await job(join(data, "jobs"), "kept", Date.now() - 60_000);
    const started = await startServer({ dataDirectory: data, transcriptTtlMs: hour });
    try {
      expect((await send(started.port, "GET", "/jobs/expired")).status).toBe(404);
      expect((await send(started.port, "GET", "/jobs/kept")).json.state).toBe("succeeded");
      expect(started.logged).toContainEqual(expect.objectContaining({ kind: "executor-swept", jobs: ["expired"] }));
    } finally {
      await started.server.close();
    }
  });
});
