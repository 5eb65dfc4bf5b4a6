// A finished job's events over real loopback HTTP, through a restart of the real server on the
// same data directory: without Last-Event-ID the stream replays what the live stream sent,
// with the same ids; with it, only what followed that id, ending with job-end carrying the
// result. The job itself is real (a local bare repository, a scripted model, the OS sandbox).
import { join } from "node:path";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { afterEach, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import type { ExecutorServer, ModelFactory } from "../src/index.js";
import { bareRepository, followEvents, jobBody, send, settled, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-replay-server-");
const servers: ExecutorServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const addNote: ScriptedStepSource = {
  toolCalls: [
    {
      name: "apply_workspace_patch",
      input: { patch: "*** Begin Patch\n*** Add File: NOTE.md\n+hello\n*** End Patch" },
    },
  ],
};

describeNeeding(osSandboxPrograms, "a finished job's events over HTTP", () => {
  it("replays the live ids after the end, and again after a restart on the same data directory", async () => {
    const bare = await bareRepository(temp.path);
    const state = { dataDirectory: join(temp.path, "data"), transcriptRoot: join(temp.path, "transcripts") };
    const model = scriptedModel([addNote, { text: "Added the note." }]);
    // The model waits until the first client follows, so that client reads the live stream.
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const gated: ModelFactory = () => ({
      specifier: model.specifier,
      async *stream(request, options) {
        await gate;
        yield* model.stream(request, options);
      },
    });
    const first = await startServer({ allowFileRemotes: true, modelFactory: gated, ...state });
    servers.push(first.server);
    const body = jobBody({ jobId: "job-replay", repo: { url: `file://${bare}`, baseBranch: "main" } });
    expect((await send(first.port, "POST", "/run", { body: JSON.stringify(body) })).status).toBe(202);
    const following = followEvents(first.port, "job-replay");
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    const live = await following;
    expect((await settled(first.port, "job-replay")).state).toBe("succeeded");
    const end = live.events.at(-1);
    expect(end).toMatchObject({
      event: "job-end",
      data: { state: "succeeded", result: { branch: "castellan/job-replay" } },
    });
    expect(live.events[0]?.id).toBe(1);

    expect((await followEvents(first.port, "job-replay")).events).toEqual(live.events);
    const runEnd = live.events.findIndex((event) => event.event === "run-end");
    expect(runEnd).toBeGreaterThan(0);
    const after = live.events.slice(runEnd + 1);
    expect((await followEvents(first.port, "job-replay", live.events[runEnd]?.id)).events).toEqual(after);

    await first.server.close();
    servers.splice(0);
    const second = await startServer({ allowFileRemotes: true, modelFactory: () => model, ...state });
    servers.push(second.server);
    expect((await followEvents(second.port, "job-replay")).events).toEqual(live.events);
    const tail = await followEvents(second.port, "job-replay", live.events[runEnd]?.id);
    expect(tail.status).toBe(200);
    expect(tail.events).toEqual(after);
    expect(tail.events.at(-1)).toEqual(end);
    expect((await followEvents(second.port, "job-replay", end?.id)).events).toEqual([]);
  }, 120_000);
});
