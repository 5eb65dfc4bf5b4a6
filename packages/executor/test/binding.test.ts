// The default model binding against a loopback server speaking Chat Completions SSE: the job's
// token is the Authorization header, proxyPhasePath puts each pass under /phase/<pass>, and an
// error that echoes the key leaves it in no view, event, log or transcript. Then the real bin:
// SIGKILLed while a model step is held and restarted on the same directory, the job is
// interrupted with its phase and undrained telemetry and no checkout left, and a replay resumes
// it; SIGTERM records a running job interrupted and exits 0.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { errorBody, textAnswer, toolCallAnswer } from "../../models/test/openai-compatible/chat-fixture.ts";
import { type HttpFixture, sendJson, sendSse, startHttpFixture } from "../../models/test/support/http-fixture.ts";
import type { ExecutorServer } from "../src/index.js";
import {
  bareRepository,
  followEvents,
  jobBody,
  send,
  settled,
  startServer,
  tempDirPerTest,
  testToken,
} from "./support.ts";

const temp = tempDirPerTest("castellan-executor-binding-");
const bin = fileURLToPath(new URL("../dist/bin/castellan-executor.js", import.meta.url));
const key = "sk-job-model-key-0123456789abcdef";
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const patchCall = () =>
  toolCallAnswer([
    {
      id: "call_patch",
      name: "apply_workspace_patch",
      pieces: [JSON.stringify({ patch: "*** Begin Patch\n*** Add File: NOTE.md\n+hello\n*** End Patch" })],
    },
  ]);

async function fixture(
  answers: ((response: import("node:http").ServerResponse) => Promise<void> | void)[],
): Promise<HttpFixture> {
  const server = await startHttpFixture(async (_request, response) => {
    const answer = answers.shift();
    if (answer) await answer(response);
    else await sendSse(response, textAnswer(["nothing more"]));
  });
  cleanups.push(() => server.close());
  return server;
}

describeNeeding(osSandboxPrograms, "the job's model binding", () => {
  it("sends the job's token as the Authorization header, under /phase/<pass> with proxyPhasePath", async () => {
    const models = await fixture([
      (response) => sendSse(response, patchCall()),
      (response) => sendSse(response, textAnswer(["Added it."])),
    ]);
    const bare = await bareRepository(temp.path);
    const started: { server: ExecutorServer; port: number } = await startServer({ allowFileRemotes: true });
    cleanups.push(() => started.server.close());
    const body = jobBody({
      jobId: "bound",
      model: { provider: "openai-compatible", baseURL: `${models.url}/v1`, token: key, id: "fixture-model" },
      proxyPhasePath: true,
      repo: { url: `file://${bare}`, baseBranch: "main" },
    });
    await send(started.port, "POST", "/run", { body: JSON.stringify(body) });
    const view = await settled(started.port, "bound");
    expect(view).toMatchObject({ state: "succeeded", result: { summary: "Added it." } });
    expect(models.requests.map((request) => request.path)).toEqual([
      "/v1/phase/initial/chat/completions",
      "/v1/phase/initial/chat/completions",
    ]);
    expect(models.requests.every((request) => request.headers.authorization === `Bearer ${key}`)).toBe(true);
    expect(view.result.callMetrics).toHaveLength(2);
  }, 120_000);

  it("keeps a key the provider's error echoes out of the view, the events, the log and the transcript", async () => {
    const models = await fixture([
      (response) =>
        sendJson(
          response,
          401,
          errorBody(`Incorrect API key provided: ${key}`, "invalid_request_error", "invalid_api_key"),
        ),
    ]);
    const bare = await bareRepository(temp.path);
    const started = await startServer({ allowFileRemotes: true });
    cleanups.push(() => started.server.close());
    const body = jobBody({
      jobId: "echoed",
      model: { provider: "openai-compatible", baseURL: `${models.url}/v1`, token: key, id: "fixture-model" },
      repo: { url: `file://${bare}`, baseBranch: "main" },
    });
    await send(started.port, "POST", "/run", { body: JSON.stringify(body) });
    const events = followEvents(started.port, "echoed");
    const view = await settled(started.port, "echoed");
    expect(view.state).toBe("failed");
    const everything = [
      JSON.stringify(view),
      JSON.stringify((await events).events),
      JSON.stringify(started.logged),
      ...(await Promise.all(
        (
          await readdir(join(started.directory, "transcripts"), { recursive: true, withFileTypes: true })
        )
          .filter((entry) => entry.isFile())
          .map((entry) => readFile(join(entry.parentPath, entry.name), "utf8")),
      )),
      await readFile(join(started.directory, "data", "jobs", "echoed", "job.json"), "utf8"),
    ].join("\n");
    expect(models.requests.length).toBeGreaterThan(0);
    expect(everything).not.toContain(key);
  }, 120_000);
});

describeNeeding(osSandboxPrograms, "the bin across a SIGKILL and a SIGTERM", () => {
  function serve(
    dataDirectory: string,
  ): Promise<{ child: ChildProcess; port: number; exited: Promise<number | null> }> {
    const child = spawn(
      process.execPath,
      [bin, "serve", "--port", "0", "--data-directory", dataDirectory, "--allow-file-remotes"],
      {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          CASTELLAN_EXECUTOR_TOKEN: testToken,
          HARNESS_TRANSCRIPT_ROOT: join(temp.path, "transcripts"),
          HARNESS_DOCKER_STATUS_FILE: join(temp.path, "sandbox-status.json"),
        },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    cleanups.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    return new Promise((resolve, reject) => {
      let stderr = "";
      child.stderr?.setEncoding("utf8");
      child.stderr?.on("data", (chunk: string) => {
        stderr += chunk;
        const line = stderr.split("\n").find((entry) => entry.includes('"executor-listening"'));
        if (line) resolve({ child, port: JSON.parse(line).port, exited });
      });
      child.once("exit", (code) => reject(new Error(`the bin exited ${code}: ${stderr}`)));
    });
  }

  it("comes back after a SIGKILL with the job interrupted, its telemetry kept, and resumes it on replay", async () => {
    let hold = true;
    const models = await fixture([]);
    models.handle(async (_request, response) => {
      if (hold) return; // Never answers: the model step is held until the process dies.
      await sendSse(response, textAnswer(["Resumed."]));
    });
    const bare = await bareRepository(temp.path);
    const data = join(temp.path, "data");
    const first = await serve(data);
    const body = jobBody({
      jobId: "killed",
      model: { provider: "openai-compatible", baseURL: `${models.url}/v1`, token: key, id: "fixture-model" },
      repo: { url: `file://${bare}`, baseBranch: "main" },
    });
    expect((await send(first.port, "POST", "/run", { body: JSON.stringify(body) })).status).toBe(202);
    const deadline = Date.now() + 60_000;
    while (models.requests.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(models.requests.length).toBe(1);
    first.child.kill("SIGKILL");
    await first.exited;

    hold = false;
    const second = await serve(data);
    const view = (await send(second.port, "GET", "/jobs/killed")).json;
    expect(view).toMatchObject({ state: "interrupted", phase: "agent", pass: "initial" });
    // The clone phase's span was published before the kill and never read: it is handed out now.
    expect(view.spans.map((span: { kind: string; name: string }) => `${span.kind}:${span.name}`)).toContain(
      "phase:clone",
    );
    expect(existsSync(join(data, "jobs", "killed", "checkout"))).toBe(false);
    expect(existsSync(join(data, "jobs", "killed", "secrets"))).toBe(false);
    expect((await send(second.port, "POST", "/run", { body: JSON.stringify(body) })).status).toBe(202);
    const resumed = await settled(second.port, "killed");
    expect(resumed).toMatchObject({
      state: "succeeded",
      pass: "resume-1",
      resumedFrom: { count: 1, lastPhase: "agent" },
    });

    // SIGTERM while a job runs: it is recorded interrupted, and the bin exits 0.
    hold = true;
    const again = { ...body, jobId: "termed" };
    await send(second.port, "POST", "/run", { body: JSON.stringify(again) });
    const held = models.requests.length;
    while (models.requests.length === held && Date.now() < deadline + 60_000)
      await new Promise((resolve) => setTimeout(resolve, 50));
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    const record = JSON.parse(await readFile(join(data, "jobs", "termed", "job.json"), "utf8"));
    expect(record.state).toBe("interrupted");
  }, 180_000);
});
