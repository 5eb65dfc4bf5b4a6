// Coding jobs end to end over loopback HTTP: a local bare repository as the remote, a scripted
// model through modelFactory, the agent's workspace in the real OS sandbox. A job clones the
// base branch, runs one pass, commits what the agent left and pushes the work branch; the view
// shows it succeeded with { branch, summary }; a replay starts nothing; another body is 409; a
// failed clone is reported without the credentials; a resumed job after a restart runs a
// `resume-1` pass; closing the server interrupts a running job and refuses submissions.
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { ModelBinding } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { afterEach, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import type { ExecutorServer, ModelFactory, PassInfo } from "../src/index.js";
import { bareRepository, followEvents, git, jobBody, send, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-jobs-");
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

/** A factory that hands each pass a scripted model and records the passes it bound. */
function scripted(steps: readonly ScriptedStepSource[]) {
  const passes: PassInfo[] = [];
  const model = scriptedModel(steps);
  const factory: ModelFactory = (_model, pass) => {
    passes.push(pass);
    return model;
  };
  return { factory, passes, model };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const finished = (view: { state?: string }) => !["queued", "running"].includes(view.state ?? "queued");

describeNeeding(osSandboxPrograms, "coding jobs", () => {
  it("streams a job's events as SSE: Run events with their pass, no deltas, scrubbed, job-end last; Last-Event-ID replays", async () => {
    const bare = await bareRepository(temp.path);
    const held = { release: () => undefined as void };
    const gate = new Promise<void>((resolve) => {
      held.release = resolve;
    });
    const { factory } = scripted([addNote, { text: "Used the key model-secret-token-value to finish.", chunkSize: 4 }]);
    const slowStart: ModelFactory = (model, pass) => {
      const inner = factory(model, pass);
      return {
        specifier: inner.specifier,
        async *stream(request, options) {
          await gate;
          yield* inner.stream(request, options);
        },
      };
    };
    const { server, port } = await startServer({ allowFileRemotes: true, modelFactory: slowStart });
    servers.push(server);
    const body = jobBody({ jobId: "job-sse", repo: { url: `file://${bare}`, baseBranch: "main" } });
    await send(port, "POST", "/run", { body: JSON.stringify(body) });
    const following = followEvents(port, "job-sse");
    await new Promise((resolve) => setTimeout(resolve, 200));
    held.release();
    const { status, events } = await following;
    expect(status).toBe(200);
    const kinds = events.map((event) => event.event);
    expect(kinds.at(-1)).toBe("job-end");
    expect(events.at(-1)?.data).toMatchObject({ state: "succeeded", result: { branch: "castellan/job-sse" } });
    expect(kinds).toContain("job-state-changed");
    expect(kinds).toEqual(
      expect.arrayContaining(["run-start", "tool-start", "tool-end", "assistant-message", "run-end"]),
    );
    expect(kinds.filter((kind) => kind.endsWith("-delta"))).toEqual([]);
    expect(events.filter((event) => event.event === "tool-end").every((event) => event.data.pass === "initial")).toBe(
      true,
    );
    const ids = events.map((event) => event.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(JSON.stringify(events)).not.toContain("model-secret-token-value");
    expect(JSON.stringify(events)).toContain("[redacted]");
    // After the end, a stream replays what the live one sent, with the same ids, and ends.
    const after = await followEvents(port, "job-sse");
    expect(after.events).toEqual(events);
    expect((await send(port, "GET", "/jobs/nope/events")).status).toBe(404);
  }, 120_000);

  it("replays the buffered events after Last-Event-ID to a client that joins late", async () => {
    const bare = await bareRepository(temp.path);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { factory } = scripted([addNote, { text: "done" }]);
    const gated: ModelFactory = (model, pass) => {
      const inner = factory(model, pass);
      let first = true;
      return {
        specifier: inner.specifier,
        async *stream(request, options) {
          if (!first) await gate;
          first = false;
          yield* inner.stream(request, options);
        },
      };
    };
    const { server, port } = await startServer({ allowFileRemotes: true, modelFactory: gated });
    servers.push(server);
    await send(port, "POST", "/run", {
      body: JSON.stringify(jobBody({ jobId: "job-late", repo: { url: `file://${bare}`, baseBranch: "main" } })),
    });
    const whole = followEvents(port, "job-late");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const partial = followEvents(port, "job-late", 3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    const [all, late] = await Promise.all([whole, partial]);
    expect(late.events.map((event) => event.id)).toEqual(all.events.map((event) => event.id).filter((id) => id > 3));
  }, 120_000);

  it("drains telemetry: 300 reads and 100 calls under 8 pollers, SSE and GET /jobs; seq runs without gap", async () => {
    const bare = await bareRepository(temp.path);
    // 98 turns of reads (300 in all), an edit, the answer: 100 model calls.
    const reads: ScriptedStepSource[] = Array.from({ length: 98 }, (_, turn) => ({
      toolCalls: Array.from({ length: turn < 6 ? 4 : 3 }, () => ({
        name: "read_workspace_file",
        input: { path: "README.md" },
      })),
      usage: { inputTokens: 100, outputTokens: 5 },
    }));
    const { factory } = scripted([
      ...reads,
      addNote,
      { text: "Read and noted.", usage: { inputTokens: 120, outputTokens: 4 } },
    ]);
    const { server, port } = await startServer({ allowFileRemotes: true, modelFactory: factory });
    servers.push(server);
    const body = jobBody({
      jobId: "job-drain",
      repo: { url: `file://${bare}`, baseBranch: "main" },
      // 300 reads in a row are past the default backstop of 200 exempt calls.
      tuning: { guardLimits: { maxConsecutiveNonActionCalls: 400 } },
    });
    await send(port, "POST", "/run", { body: JSON.stringify(body) });
    const streamed = followEvents(port, "job-drain");
    const seen: { seq: number; turn: number; outcome: string }[] = [];
    const spans: { kind: string; name: string }[] = [];
    let done = false;
    const poll = async () => {
      while (!done) {
        const view = (await send(port, "GET", "/jobs/job-drain")).json;
        seen.push(...view.callMetrics);
        spans.push(...view.spans);
        if (!["queued", "running"].includes(view.state)) done = true;
        else await send(port, "GET", "/jobs");
      }
    };
    await Promise.all(Array.from({ length: 8 }, poll));
    const last = (await send(port, "GET", "/jobs/job-drain")).json;
    seen.push(...last.callMetrics);
    spans.push(...last.spans);
    expect(last.state).toBe("succeeded");
    const seqs = seen.map((entry) => entry.seq).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 100 }, (_, index) => index + 1));
    // The result repeats the complete list, in seq order.
    expect(last.result.callMetrics.map((entry: { seq: number }) => entry.seq)).toEqual(seqs);
    expect(last.result.callMetrics[0]).toMatchObject({
      pass: "initial",
      model: "scripted/model",
      turn: 1,
      inputTokens: 100,
      outcome: "completed",
    });
    expect(spans.filter((entry) => entry.kind === "tool" && entry.name === "read_workspace_file")).toHaveLength(300);
    expect(spans.filter((entry) => entry.kind === "phase").map((entry) => entry.name)).toEqual([
      "clone",
      "agent",
      "salvage",
      "push",
    ]);
    // The event stream saw the whole job and drained nothing: the pollers got every entry.
    const { events } = await streamed;
    expect(events.filter((event) => event.event === "tool-end")).toHaveLength(301);
    expect(events.at(-1)?.event).toBe("job-end");
    const listed = (await send(port, "GET", "/jobs")).json.jobs[0];
    expect(listed).not.toHaveProperty("callMetrics");
    // Nothing is left to drain.
    const after = (await send(port, "GET", "/jobs/job-drain")).json;
    expect([after.callMetrics, after.spans]).toEqual([[], []]);
  }, 120_000);

  it("clones, runs one pass, commits and pushes the work branch; a replay starts nothing; another body is 409", async () => {
    const bare = await bareRepository(temp.path);
    const { factory, passes, model } = scripted([addNote, { text: "Added NOTE.md with a greeting." }]);
    const { server, port, directory } = await startServer({ allowFileRemotes: true, modelFactory: factory });
    servers.push(server);
    const body = jobBody({
      jobId: "job-e2e",
      repo: { url: `file://${bare}`, baseBranch: "main", token: "repo-secret-token-123" },
    });
    const submitted = await send(port, "POST", "/run", { body: JSON.stringify(body) });
    expect(submitted.status).toBe(202);
    const view = await until(async () => (await send(port, "GET", "/jobs/job-e2e")).json, finished);
    expect(view).toMatchObject({
      jobId: "job-e2e",
      kind: "coder",
      state: "succeeded",
      phase: "push",
      pass: "initial",
      result: { branch: "castellan/job-e2e", summary: "Added NOTE.md with a greeting." },
    });
    expect(passes).toEqual([{ name: "initial", proxyPhasePath: false }]);
    expect(await git(["--git-dir", bare, "show", "castellan/job-e2e:NOTE.md"], temp.path)).toBe("hello\n");
    expect(await git(["--git-dir", bare, "log", "--format=%s", "-1", "castellan/job-e2e"], temp.path)).toBe(
      "castellan salvage: 1 new file the agent left uncommitted (job-e2e, initial)\n",
    );
    // The checkout is gone; the transcript is kept, marked for the retention sweep.
    expect(existsSync(join(directory, "data", "jobs", "job-e2e", "checkout"))).toBe(false);
    const transcripts = await readdir(join(directory, "transcripts"));
    expect(transcripts).toHaveLength(1);
    expect(transcripts[0]).toMatch(/^job-e2e\.[0-9a-f]{8}$/);
    expect(existsSync(join(directory, "transcripts", transcripts[0] as string, ".castellan-retained"))).toBe(true);

    const requests = model.requests.length;
    const replay = await send(port, "POST", "/run", {
      body: JSON.stringify({ ...body, repo: { ...(body.repo as object), token: "refreshed-token-456" } }),
    });
    expect(replay.status).toBe(202);
    expect(replay.json).toEqual({ jobId: "job-e2e", state: "succeeded" });
    expect(model.requests.length).toBe(requests);
    const conflict = await send(port, "POST", "/run", {
      body: JSON.stringify({ ...body, systemPrompt: "Something else." }),
    });
    expect(conflict.status).toBe(409);
    expect(conflict.json.error.code).toBe("job-conflict");
    const listed = await send(port, "GET", "/jobs?state=succeeded");
    expect(listed.json.jobs.map((job: { jobId: string }) => job.jobId)).toEqual(["job-e2e"]);
  }, 120_000);

  it("reports a failed clone with its phase and no credential, and cancels a settled job as unchanged", async () => {
    const bare = await bareRepository(temp.path);
    const { factory, model } = scripted([]);
    const { server, port } = await startServer({ allowFileRemotes: true, modelFactory: factory });
    servers.push(server);
    const secret = "repo-secret-token-789";
    const body = jobBody({
      jobId: "job-missing",
      repo: { url: `file://${bare}`, baseBranch: "no-such-branch", token: secret },
    });
    await send(port, "POST", "/run", { body: JSON.stringify(body) });
    const view = await until(async () => (await send(port, "GET", "/jobs/job-missing")).json, finished);
    expect(view).toMatchObject({ state: "failed", phase: "clone", error: { code: "git-failed" } });
    expect(JSON.stringify(view)).not.toContain(secret);
    expect(model.requests).toHaveLength(0);
    const cancel = await send(port, "POST", "/jobs/job-missing/cancel");
    expect(cancel.status).toBe(200);
    expect(cancel.json).toEqual({ jobId: "job-missing", state: "failed" });
  }, 60_000);

  it("closing the server interrupts a running job and refuses submissions; a restarted server resumes it on replay", async () => {
    const bare = await bareRepository(temp.path);
    // A model that takes half a second to stop once aborted, so the server is still closing when the next POST comes.
    let requests = 0;
    const slowToStop: ModelBinding = {
      specifier: "test/slow-to-stop",
      async *stream(_request, { signal }) {
        requests++;
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        await new Promise((resolve) => setTimeout(resolve, 500));
        yield { type: "error", error: new Error("stopped") };
      },
    };
    const first = await startServer({
      allowFileRemotes: true,
      modelFactory: () => slowToStop,
      dataDirectory: join(temp.path, "data"),
    });
    const body = jobBody({ jobId: "job-held", repo: { url: `file://${bare}`, baseBranch: "main" } });
    await send(first.port, "POST", "/run", { body: JSON.stringify(body) });
    await until(
      async () => requests,
      (count) => count > 0,
    );
    const closing = first.server.close();
    const refused = await send(first.port, "POST", "/run", { body: JSON.stringify(jobBody({ jobId: "late" })) });
    expect(refused.status).toBe(503);
    expect(refused.json.error.code).toBe("shutting-down");
    await closing;

    const resumed = scripted([addNote, { text: "Resumed and added the note." }]);
    const second = await startServer({
      allowFileRemotes: true,
      modelFactory: resumed.factory,
      dataDirectory: join(temp.path, "data"),
    });
    servers.push(second.server);
    expect((await send(second.port, "GET", "/jobs/job-held")).json).toMatchObject({
      state: "interrupted",
      phase: "agent",
    });
    expect((await send(second.port, "POST", "/run", { body: JSON.stringify(body) })).status).toBe(202);
    const view = await until(async () => (await send(second.port, "GET", "/jobs/job-held")).json, finished);
    expect(view).toMatchObject({
      state: "succeeded",
      pass: "resume-1",
      resumedFrom: { count: 1, lastPhase: "agent" },
      result: { branch: "castellan/job-held" },
    });
    expect(resumed.passes.map((pass) => pass.name)).toEqual(["resume-1"]);
  }, 120_000);
});
