// The sandbox checks: the verdicts (only exit 0 is usable, only the sandbox's own refusal is
// unusable, our machinery failing is undetermined); the boot record taken in the background
// (never delaying listen), bounded, written 0600; and the live check of every job, whose decided
// negative fails the job with sandbox-unavailable before any model call.
import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import type { ModelRequest } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { SandboxUnavailableError, SandboxWorkerMissingError } from "@castellan/node-runner";
import { afterEach, describe, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { inventoryHeading, type ProbeRun, probeSandbox } from "../src/index.js";
import { bareRepository, jobBody, send, settled, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-sandbox-");
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ran = (exitCode: number | null, stderr = "", timedOut = false): ProbeRun => ({
  exitCode,
  stdout: "",
  stderr,
  timedOut,
});

/** An executable script in the test's directory. */
async function script(name: string, text: string): Promise<string> {
  const path = join(temp.path, name);
  await writeFile(path, `#!/bin/sh\n${text}\n`);
  await chmod(path, 0o755);
  return path;
}

/** Polls `/health` until the boot record is in; resolves with the health view. */
async function bootRecorded(port: number): Promise<any> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const health = (await send(port, "GET", "/health", { auth: null })).json;
    if (health.sandbox.boot !== "unmeasured" || Date.now() > deadline) return health;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the sandbox verdict", () => {
  it("is usable only on exit 0, unusable only when the sandbox refused, else undetermined", async () => {
    const binary = "/bin/true";
    expect(await probeSandbox(async () => ran(0), binary, 1_000)).toEqual({ state: "usable" });
    expect(
      await probeSandbox(async () => ran(1, "bwrap: No permissions to create new namespace\n"), binary, 1_000),
    ).toEqual({ state: "unusable", reason: "bubblewrap refused: No permissions to create new namespace" });
    expect(await probeSandbox(async () => ran(null, "", true), binary, 1_000)).toMatchObject({
      state: "undetermined",
      reason: "the probe did not finish within 1000 ms",
    });
    expect(await probeSandbox(async () => ran(126, "sh: permission denied"), binary, 1_000)).toMatchObject({
      state: "undetermined",
    });
    const missing = new SandboxUnavailableError("The sandbox needs bwrap, not found in PATH.", ["bwrap"]);
    expect(
      await probeSandbox(
        async () => {
          throw missing;
        },
        binary,
        1_000,
      ),
    ).toEqual({ state: "unusable", reason: "the sandbox needs bwrap, which is missing" });
    expect(
      await probeSandbox(
        async () => {
          throw new SandboxWorkerMissingError("/nowhere/entry.js");
        },
        binary,
        1_000,
      ),
    ).toMatchObject({ state: "undetermined", settled: true });
    expect(
      await probeSandbox(
        async () => {
          throw new Error("the worker stopped");
        },
        binary,
        1_000,
      ),
    ).toMatchObject({ state: "undetermined" });
  });

  it("never runs a probe binary that is not there, and calls that a settled unknown", async () => {
    let runs = 0;
    const verdict = await probeSandbox(
      async () => {
        runs++;
        return ran(0);
      },
      join(temp.path, "no-such-probe"),
      1_000,
    );
    expect(runs).toBe(0);
    expect(verdict).toMatchObject({ state: "undetermined", settled: true });
    expect((verdict as { reason: string }).reason).toContain("is not an executable file");
  });
});

describeNeeding(osSandboxPrograms, "the sandbox checks of a real server", () => {
  it("takes the boot record in the background, writes it 0600, and checks each job live", async () => {
    const slow = await script("slow-probe", "sleep 2");
    const statusFile = join(temp.path, "status", "sandbox.json");
    await mkdir(join(temp.path, "status"));
    const model = scriptedModel([{ text: "Done." }]);
    const started = await startServer({
      sandboxProbeBinary: slow,
      sandboxStatusFile: statusFile,
      allowFileRemotes: true,
      modelFactory: () => model,
    });
    cleanups.push(() => started.server.close());
    // listen() did not wait for the check, which takes at least the probe's 2 s.
    const early = (await send(started.port, "GET", "/health", { auth: null })).json;
    expect(early.sandbox).toEqual({ boot: "unmeasured", last: "unmeasured" });
    const health = await bootRecorded(started.port);
    expect(health.sandbox.boot).toMatchObject({ verdict: "usable" });
    expect(health.sandbox.last).toBe("unmeasured");
    const record = JSON.parse(await readFile(statusFile, "utf8"));
    expect(record).toMatchObject({ verdict: "usable", probeBinary: slow });
    expect(record.durationMs).toBeGreaterThanOrEqual(2_000);
    expect((await stat(statusFile)).mode & 0o777).toBe(0o600);
    expect(started.logged).toContainEqual(
      expect.objectContaining({ kind: "executor-sandbox-checked", verdict: "usable" }),
    );

    const bare = await bareRepository(temp.path);
    await send(started.port, "POST", "/run", {
      body: JSON.stringify(jobBody({ jobId: "live", repo: { url: `file://${bare}`, baseBranch: "main" } })),
    });
    expect((await settled(started.port, "live")).state).toBe("succeeded");
    const system = (model.requests[0] as ModelRequest).system;
    expect(system.slice(system.indexOf(inventoryHeading))).toContain(
      "Sandbox: your commands run in the OS sandbox; it was checked live for this job.",
    );
    const after = (await send(started.port, "GET", "/health", { auth: null })).json;
    expect(after.sandbox.last).toMatchObject({ verdict: "usable" });
    expect(JSON.stringify(after)).not.toContain("live");
  }, 120_000);

  it("bounds the boot check by sandboxReadyTimeoutSeconds, and a missing probe binary is undetermined", async () => {
    const hung = await script("hung-probe", "sleep 30");
    const first = await startServer({ sandboxProbeBinary: hung, sandboxReadyTimeoutSeconds: 1 });
    cleanups.push(() => first.server.close());
    const bounded = await bootRecorded(first.port);
    expect(bounded.sandbox.boot).toMatchObject({
      verdict: "undetermined",
      reason: "the check did not finish within 1 s",
    });

    const model = scriptedModel([{ text: "Done." }]);
    const second = await startServer({
      sandboxProbeBinary: join(temp.path, "no-such-probe"),
      allowFileRemotes: true,
      modelFactory: () => model,
    });
    cleanups.push(() => second.server.close());
    const health = await bootRecorded(second.port);
    expect(health.sandbox.boot).toMatchObject({ verdict: "undetermined" });
    expect(health.sandbox.boot.reason).toContain("is not an executable file");
    // An unknown is never a broken sandbox: the job runs, and its block says what is not known.
    const bare = await bareRepository(temp.path);
    await send(second.port, "POST", "/run", {
      body: JSON.stringify(jobBody({ jobId: "unknown", repo: { url: `file://${bare}`, baseBranch: "main" } })),
    });
    expect((await settled(second.port, "unknown")).state).toBe("succeeded");
    expect((model.requests[0] as ModelRequest).system).toContain(
      "Sandbox: whether it works could not be determined (the probe binary",
    );
  }, 120_000);

  it("fails a job whose live check is refused by bubblewrap, before any model call", async () => {
    const stubs = join(temp.path, "stubs");
    await mkdir(stubs);
    await writeFile(
      join(stubs, "bwrap"),
      "#!/bin/sh\necho 'bwrap: No permissions to create new namespace, likely because the kernel does not allow it.' >&2\nexit 1\n",
    );
    await chmod(join(stubs, "bwrap"), 0o755);
    const path = process.env.PATH;
    process.env.PATH = `${stubs}${delimiter}${path ?? ""}`;
    cleanups.push(() => {
      process.env.PATH = path;
    });
    const model = scriptedModel([{ text: "Never asked." }]);
    const started = await startServer({ allowFileRemotes: true, modelFactory: () => model });
    cleanups.push(() => started.server.close());
    const health = await bootRecorded(started.port);
    expect(health.sandbox.boot).toMatchObject({ verdict: "unusable" });
    expect(health.sandbox.boot.reason).toContain("No permissions to create new namespace");

    const bare = await bareRepository(temp.path);
    await send(started.port, "POST", "/run", {
      body: JSON.stringify(jobBody({ jobId: "refused", repo: { url: `file://${bare}`, baseBranch: "main" } })),
    });
    const view = await settled(started.port, "refused");
    expect(view.state).toBe("failed");
    expect(view.error.code).toBe("sandbox-unavailable");
    expect(view.error.evidence.sandbox).toMatchObject({ verdict: "unusable" });
    expect(model.requests).toHaveLength(0);
    const after = (await send(started.port, "GET", "/health", { auth: null })).json;
    expect(after.sandbox.last).toMatchObject({ verdict: "unusable" });
  }, 120_000);
});
