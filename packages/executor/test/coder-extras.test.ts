// More of the coding job end to end: context images staged before every pass (a repair pass
// fetches nothing again; a failed transfer is named to the agent), follow-ups and effort from
// the sentinels, a spent reproduction budget, a check past its deadline (124), and a server
// stopped mid-pass publishing what the agent committed once more.
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { afterEach, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import type { ModelFactory } from "../src/index.js";
import { startArtifactFixture } from "./artifact-fixture.ts";
import { buggyMath, command, fixAndCommit, fixedMath, patchMath, sampleRepository } from "./sample-project.ts";
import { git, jobBody, send, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-extras-");
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const wrong = "export function add(a, b) {\n  return a * b;\n}\n";
const artifactToken = "artifact-bearer-token-0123456789";

async function runJob(
  steps: readonly (ScriptedStepSource | ((request: unknown) => ScriptedStepSource))[],
  body: Record<string, unknown>,
  server: Record<string, unknown> = {},
) {
  const bare = await sampleRepository(temp.path);
  const model = scriptedModel(steps as ScriptedStepSource[]);
  const factory: ModelFactory = () => model;
  const started = await startServer({ allowFileRemotes: true, modelFactory: factory, ...server });
  cleanups.push(() => started.server.close());
  const jobId = String(body.jobId ?? "job-x");
  const posted = await send(started.port, "POST", "/run", {
    body: JSON.stringify(jobBody({ jobId, repo: { url: `file://${bare}`, baseBranch: "main" }, ...body })),
  });
  expect(posted.status, posted.text).toBe(202);
  const followUps: { title: string; pass: string }[] = [];
  const deadline = Date.now() + 150_000;
  let view: any;
  for (;;) {
    view = (await send(started.port, "GET", `/jobs/${jobId}`)).json;
    followUps.push(...view.followUps);
    if (!["queued", "running"].includes(view.state) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { view, model, bare, followUps, branch: `castellan/${jobId}`, ...started };
}

describeNeeding(osSandboxPrograms, "more of the coding job", () => {
  it("stages context images before each pass, fetching only misses, and names a failed transfer to the agent", async () => {
    const images = await startArtifactFixture(artifactToken, (id) =>
      id === "missing" ? { kind: "status", status: 404 } : { kind: "file", body: Buffer.from(`png of ${id}`) },
    );
    cleanups.push(() => images.close());
    const steps = [
      command("ls .castellan-context/reference-screenshots"),
      patchMath(buggyMath, wrong),
      command("git commit -qam 'Try'"),
      { text: "Tried." },
      patchMath(wrong, fixedMath),
      command("git commit -qam 'Fix'"),
      { text: "Fixed." },
    ];
    const { view, model, bare, branch } = await runJob(steps, {
      referenceScreenshots: {
        url: images.url,
        token: artifactToken,
        files: [
          { artifactId: "home", fileName: "home.png", view: "Home page" },
          { artifactId: "missing", fileName: "cart.png", view: "Cart" },
        ],
        omitted: ["Checkout"],
      },
      validationChecks: { commands: [{ name: "unit", command: "node --test" }] },
    });
    expect(view.state, JSON.stringify(view.error)).toBe("succeeded");
    const first = model.requests[0]?.system ?? "";
    expect(first).toContain("Home page");
    expect(first).toContain("home.png");
    expect(first).toContain("Cart");
    expect(first).toContain("Checkout");
    // The staged file was there for the agent's command.
    expect(JSON.stringify(model.requests[1]?.messages.at(-1))).toContain("home.png");
    // The repair pass fetched only the miss again (the 404), never the staged image.
    const fetched = images.requests.map((request) => request.path);
    expect(fetched.filter((path) => path.endsWith("/home"))).toHaveLength(1);
    expect(fetched.filter((path) => path.endsWith("/missing"))).toHaveLength(2);
    expect(JSON.stringify(view)).not.toContain(artifactToken);
    // Staged files are never committed.
    expect(await git(["ls-tree", "-r", "--name-only", branch], bare)).not.toContain(".castellan-context");
  }, 180_000);

  it("publishes each new follow-up once and reports the effort; an invalid sentinel is a note", async () => {
    const followUps = JSON.stringify([{ title: "Add a test for negative numbers", detail: "add(-1, 1)" }]);
    const steps = [
      patchMath(buggyMath, wrong),
      command(`printf '%s' '${followUps}' > .castellan-follow-ups.json && git commit -qam 'Try'`),
      command(`printf '%s' '{"level":"huge"}' > .castellan-effort.json`),
      { text: "Tried." },
      patchMath(wrong, fixedMath),
      command(`git commit -qam 'Fix' && printf '%s' '{"level":"small","note":"one line"}' > .castellan-effort.json`),
      { text: "Fixed." },
    ];
    const { view, followUps: seen } = await runJob(steps, {
      validationChecks: { commands: [{ name: "unit", command: "node --test" }] },
    });
    expect(view.state, JSON.stringify(view.error)).toBe("succeeded");
    expect(seen.map((entry) => [entry.title, entry.pass])).toEqual([["Add a test for negative numbers", "initial"]]);
    expect(view.result.effort).toEqual({ level: "small", note: "one line" });
    expect(view.result.notes.some((note: string) => note.startsWith("initial:") && note.includes("effort"))).toBe(true);
  }, 180_000);

  it("ends the proof inconclusive with budget-spent, and reads a check past its deadline as 124", async () => {
    const steps = [patchMath(buggyMath, wrong), command("git commit -qam 'Try'"), { text: "Tried." }];
    const { view, model } = await runJob(
      steps,
      {
        reproduction: { check: "node --test", maxRepairPasses: 2 },
        validationChecks: { commands: [{ name: "slow", command: "sleep 30" }], maxRepairPasses: 0 },
      },
      { reproductionTotalBudgetMs: 1, validationCommandTimeoutMs: 1_000 },
    );
    expect(view.error?.code).toBe("validation-failed");
    expect(view.error.evidence.reproduction).toMatchObject({ outcome: "inconclusive", reason: "budget-spent" });
    expect(view.error.evidence.validation.rounds[0].checks[0]).toMatchObject({ name: "slow", exitCode: 124 });
    expect(model.requests).toHaveLength(3);
  }, 180_000);

  it("publishes what the agent committed once more when the server stops mid-pass", async () => {
    // The agent fixes and commits; its next model call waits until the server has stopped.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached: () => void = () => undefined;
    const committed = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const steps = fixAndCommit().slice(0, 2);
    const scripted = scriptedModel(steps);
    let calls = 0;
    const gated: ModelFactory = () => ({
      specifier: scripted.specifier,
      async *stream(request, options) {
        if (++calls > steps.length) {
          reached();
          await held;
        }
        yield* scripted.stream(request, options);
      },
    });
    const bare = await sampleRepository(temp.path);
    const started = await startServer({
      allowFileRemotes: true,
      modelFactory: gated,
      checkpointIntervalMs: 600_000,
    });
    cleanups.push(() => started.server.close());
    await send(started.port, "POST", "/run", {
      body: JSON.stringify(jobBody({ jobId: "job-stop", repo: { url: `file://${bare}`, baseBranch: "main" } })),
    });
    await committed;
    await started.server.close();
    release();
    expect(await git(["log", "--format=%s", "castellan/job-stop"], bare)).toBe("Fix add\nthe sample project\n");
  }, 180_000);
});
