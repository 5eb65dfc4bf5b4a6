// The coding job's phases end to end on real git, real bubblewrap and the real server over
// loopback: the sample project (one failing `node --test`), a scripted agent that fixes it
// through the workspace tools and commits. Install, the reproduction proof and validation with
// their repair passes, in that order, and what each pass was told.
import type { ModelRequest } from "@castellan/harness";
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { afterEach, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import type { ExecutorServer, ModelFactory, PassInfo } from "../src/index.js";
import { inventoryHeading } from "../src/inventory/environment-inventory.js";
import { buggyMath, command, fixAndCommit, fixedMath, patchMath, sampleRepository } from "./sample-project.ts";
import { git, jobBody, send, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-phases-");
const servers: ExecutorServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

function scripted(steps: readonly ScriptedStepSource[]) {
  const passes: PassInfo[] = [];
  const model = scriptedModel(steps);
  const factory: ModelFactory = (_model, pass) => {
    passes.push(pass);
    return model;
  };
  return { factory, passes, model };
}

/** The system text of a recorded request. */
function systemOf(request: ModelRequest): string {
  return request.system;
}

async function runJob(
  steps: readonly ScriptedStepSource[],
  body: Record<string, unknown>,
  options: Record<string, unknown> = {},
) {
  const bare = await sampleRepository(temp.path);
  const scriptedModel_ = scripted(steps);
  const { server, port } = await startServer({
    allowFileRemotes: true,
    modelFactory: scriptedModel_.factory,
    ...options,
  });
  servers.push(server);
  const jobId = String(body.jobId ?? "job-1");
  const posted = await send(port, "POST", "/run", {
    body: JSON.stringify(jobBody({ jobId, repo: { url: `file://${bare}`, baseBranch: "main" }, ...body })),
  });
  expect(posted.status).toBe(202);
  const spans: { name: string; kind: string; pass: string | null }[] = [];
  const deadline = Date.now() + 150_000;
  let view: any;
  for (;;) {
    view = (await send(port, "GET", `/jobs/${jobId}`)).json;
    spans.push(...view.spans);
    if (!["queued", "running"].includes(view.state) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { view, spans, bare, ...scriptedModel_, branch: `castellan/${jobId}` };
}

const phases = (spans: readonly { kind: string; name: string }[]) =>
  spans.filter((span) => span.kind === "phase").map((span) => span.name);

describeNeeding(osSandboxPrograms, "the coding job's phases", () => {
  it("installs, proves red-then-green, validates, and pushes, in that order; the install note reaches the pass", async () => {
    const steps = [
      patchMath(buggyMath, fixedMath),
      command("git add -A && git commit -qm 'Fix add'"),
      { text: "Fixed add()." },
    ];
    const { view, spans, bare, branch, model, passes } = await runJob(steps, {
      dependencyInstall: { command: "mkdir -p generated && echo built > generated/out.txt && echo installed-ok" },
      reproduction: { check: "node --test" },
      validationChecks: { commands: [{ name: "unit", command: "node --test" }] },
    });
    expect(view.state, JSON.stringify(view.error)).toBe("succeeded");
    expect(phases(spans)).toEqual(["clone", "install", "agent", "salvage", "reproduction", "validation", "push"]);
    expect(passes.map((pass) => pass.name)).toEqual(["initial"]);
    const { result } = view;
    expect(result.install).toMatchObject({ status: "succeeded", exitCode: 0, excluded: ["generated/"] });
    expect(result.install.outputTail).toContain("installed-ok");
    expect(result.reproduction.outcome).toBe("proven");
    expect(result.reproduction.attempts).toHaveLength(1);
    const [attempt] = result.reproduction.attempts;
    expect(attempt.pre.exitCode).not.toBe(0);
    expect(attempt.post.exitCode).toBe(0);
    expect(attempt.preSha).not.toBe(attempt.postSha);
    expect(result.validation).toMatchObject({ passed: true, rounds: [{ checks: [{ name: "unit", exitCode: 0 }] }] });
    // The agent's `git add -A` did not sweep up what the install created.
    const files = await git(["ls-tree", "-r", "--name-only", branch], bare);
    expect(files.split("\n")).not.toContain("generated/out.txt");
    expect(await git(["log", "--format=%s", branch], bare)).toBe("Fix add\nthe sample project\n");
    expect(result.headSha).toBe((await git(["rev-parse", branch], bare)).trim());
    expect(systemOf(model.requests[0] as ModelRequest)).toContain("Dependency install");
    expect(systemOf(model.requests[0] as ModelRequest)).toContain("installed-ok");
    expect(systemOf(model.requests[0] as ModelRequest)).toContain("never rewrite");
    expect(systemOf(model.requests[0] as ModelRequest).split(inventoryHeading)).toHaveLength(2);
    // The worktrees are gone.
    expect(await git(["worktree", "list"], bare).catch(() => "")).not.toContain("pre-1");
  }, 180_000);

  it("repairs a fix that fails validation on a second pass, told the failing command, its output and the install again", async () => {
    const wrong = "export function add(a, b) {\n  return a * b;\n}\n";
    const steps = [
      patchMath(buggyMath, wrong),
      command("git commit -qam 'Try a fix'"),
      { text: "Tried." },
      patchMath(wrong, fixedMath),
      command("git commit -qam 'Really fix add'"),
      { text: "Fixed for real." },
    ];
    const { view, passes, model, bare, branch } = await runJob(steps, {
      dependencyInstall: { command: "echo deps-ready" },
      validationChecks: { commands: [{ name: "unit", command: "node --test" }] },
    });
    expect(view.state, JSON.stringify(view.error)).toBe("succeeded");
    expect(passes.map((pass) => pass.name)).toEqual(["initial", "initial-repair-1"]);
    expect(view.result.validation.passed).toBe(true);
    expect(view.result.validation.rounds.map((round: any) => round.checks[0].exitCode)).toEqual([1, 0]);
    expect(view.result.validation.rounds[0].checks[0].outputTail).toContain("adds");
    const repairRequest = model.requests[3] as ModelRequest;
    expect(systemOf(repairRequest)).toContain("Validation failed");
    expect(systemOf(repairRequest)).toContain("node --test");
    expect(systemOf(repairRequest)).toContain("deps-ready");
    expect(view.result.summary).toBe("Fixed for real.");
    expect(await git(["log", "--format=%s", branch], bare)).toBe("Really fix add\nTry a fix\nthe sample project\n");
  }, 180_000);

  it("fails validation-failed with the report once the repair passes are spent; the branch keeps its checkpoints", async () => {
    const wrong = "export function add(a, b) {\n  return a * b;\n}\n";
    const steps = [patchMath(buggyMath, wrong), command("git commit -qam 'Try a fix'"), { text: "Tried." }];
    const { view, passes, bare, branch } = await runJob(steps, {
      validationChecks: { commands: [{ name: "unit", command: "node --test" }], maxRepairPasses: 0 },
    });
    expect(view.state).toBe("failed");
    expect(view.error.code).toBe("validation-failed");
    expect(view.error.evidence.validation).toMatchObject({ passed: false, rounds: [{ checks: [{ exitCode: 1 }] }] });
    expect(passes).toHaveLength(1);
    expect(await git(["log", "--format=%s", branch], bare)).toBe("Try a fix\nthe sample project\n");
  }, 180_000);

  it("reads a base tree that passes as not-red-before, and a check that is not found as setup-failed, without repair passes", async () => {
    const notRed = await runJob(fixAndCommit(), { jobId: "job-green", reproduction: { check: "true" } });
    expect(notRed.view.state, JSON.stringify(notRed.view.error)).toBe("succeeded");
    expect(notRed.view.result.reproduction).toMatchObject({ outcome: "inconclusive", reason: "not-red-before" });
    expect(notRed.passes).toHaveLength(1);
    const missing = await runJob(fixAndCommit(), {
      jobId: "job-missing",
      reproduction: { setup: ["true"], check: "no-such-check-command" },
    });
    expect(missing.view.state, JSON.stringify(missing.view.error)).toBe("succeeded");
    expect(missing.view.result.reproduction).toMatchObject({ outcome: "inconclusive", reason: "setup-failed" });
    expect(missing.view.result.reproduction.attempts[0].pre.exitCode).toBe(127);
  }, 240_000);
});
