// The pull request step end to end: the real server, real git and sandbox, and a loopback
// fixture speaking GitHub's REST shapes. The agent's briefing from its sentinel (made inert),
// the report region, reuse of an open PR (422 and resumed), rate limits retried, a refused
// token failing pr-failed, plain-git mode calling no API, and no PR after a failed validation.
import { type ScriptedStepSource, scriptedModel } from "@castellan/models/testing";
import { afterEach, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import type { ExecutorServer, ModelFactory } from "../src/index.js";
import { reportEnd, reportStart } from "../src/sentinels/report-region.js";
import { fixtureToken, type GithubFixture, rateLimited, startGithubFixture } from "./github-fixture.ts";
import { buggyMath, command, fixAndCommit, fixedMath, patchMath, sampleRepository } from "./sample-project.ts";
import { git, jobBody, send, settled, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-pr-");
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fixture(): Promise<GithubFixture> {
  const started = await startGithubFixture();
  cleanups.push(() => started.close());
  return started;
}

/** A shell step writing the description sentinel. */
function writeBriefing(text: string): ScriptedStepSource {
  return command(`cat > .castellan-pr-description.md <<'CASTELLAN_EOF'\n${text}\nCASTELLAN_EOF`);
}

async function runJob(
  steps: readonly ScriptedStepSource[],
  body: Record<string, unknown>,
  options: { files?: Record<string, string>; server?: Record<string, unknown> } = {},
) {
  const bare = await sampleRepository(temp.path, options.files);
  const model = scriptedModel(steps);
  const factory: ModelFactory = () => model;
  const { server, port, logged } = await startServer({
    allowFileRemotes: true,
    modelFactory: factory,
    ...options.server,
  });
  cleanups.push(() => (server as ExecutorServer).close());
  const jobId = String(body.jobId ?? "job-pr");
  const posted = await send(port, "POST", "/run", {
    body: JSON.stringify(
      jobBody({ jobId, repo: { url: `file://${bare}`, baseBranch: "main", token: fixtureToken }, ...body }),
    ),
  });
  expect(posted.status, posted.text).toBe(202);
  const view = await settled(port, jobId, 150_000);
  return { view, model, bare, logged, branch: `castellan/${jobId}` };
}

const pullRequest = (github: GithubFixture, extra: Record<string, unknown> = {}) => ({
  host: "github",
  repository: github.repository,
  apiURL: github.apiURL,
  title: "Fix add()",
  description: "The body's own description.",
  ...extra,
});

describeNeeding(osSandboxPrograms, "the pull request step", () => {
  it("opens the PR with the agent's briefing made inert, its heading as the title, and the server's report region", async () => {
    const github = await fixture();
    const briefing = [
      "# Make add() add",
      "",
      "Thanks @octocat and @acme/reviewers. This fixes #12 and closes acme/widgets#3.",
      "<script>alert(1)</script>",
      `${reportStart} forged ${reportEnd}`,
    ].join("\n");
    const steps = [
      patchMath(buggyMath, fixedMath),
      command("git commit -qam 'Fix add'"),
      writeBriefing(briefing),
      { text: "Fixed." },
    ];
    const { view, branch, bare, model } = await runJob(steps, {
      pullRequest: pullRequest(github),
      validationChecks: { commands: [{ name: "unit", command: "node --test" }] },
    });
    expect(view.state, JSON.stringify(view.error)).toBe("succeeded");
    expect(view.result.prDescriptionSource).toBe("agent");
    expect(view.result.prUrl).toMatch(/\/acme\/widgets\/pull\/1$/);
    const [created] = github.requestsTo("create");
    const sent = created?.body as { title: string; body: string; head: string; base: string };
    expect(sent).toMatchObject({ title: "Make add() add", head: branch, base: "main" });
    expect(sent.body).toContain("`@octocat`");
    expect(sent.body).toContain("`@acme/reviewers`");
    expect(sent.body).not.toMatch(/fixes #12/i);
    expect(sent.body).not.toMatch(/closes acme\/widgets#3/i);
    expect(sent.body).toContain("&lt;script&gt;");
    // One report region, the server's: the forged markers are not a region.
    expect(sent.body.split(reportStart)).toHaveLength(2);
    expect(sent.body).toContain("Validation: passed");
    // The briefing was asked for, and the sentinel never committed.
    expect(model.requests[0]?.system).toContain(".castellan-pr-description.md");
    const files = await git(["ls-tree", "-r", "--name-only", branch], bare);
    expect(files).not.toContain(".castellan-pr-description.md");
  }, 180_000);

  it("reuses the open PR after a 422, refreshes it from a briefing keeping its report region, and retries a 429", async () => {
    const github = await fixture();
    const existing = github.seed({
      head: "castellan/job-pr",
      title: "Old title",
      body: `Old description.\n\n${reportStart}\nthe backend's report\n${reportEnd}\n`,
    });
    // The first lookup misses (as when another run opened it meanwhile); create answers 422.
    github.queue("list", { status: 200, body: [] });
    github.queue("create", rateLimited({ retryAfter: 0 }));
    const steps = [...fixAndCommit().slice(0, 2), writeBriefing("The new description."), { text: "Fixed." }];
    const { view } = await runJob(steps, { pullRequest: pullRequest(github) });
    expect(view.state, JSON.stringify(view.error)).toBe("succeeded");
    expect(github.requestsTo("create")).toHaveLength(2);
    expect(view.result.prUrl).toBe(existing.html_url);
    expect(view.result.pullRequest).toMatchObject({ number: existing.number, created: false, refreshed: true });
    const [update] = github.requestsTo("update");
    const patched = update?.body as { body: string };
    expect(patched.body).toContain("The new description.");
    expect(patched.body).toContain("the backend's report");
    expect(patched.body).not.toContain("Old description.");
  }, 180_000);

  it("leaves an existing PR as it was when only the fallback description is there", async () => {
    const github = await fixture();
    const existing = github.seed({ head: "castellan/job-pr", title: "Kept", body: "Kept body." });
    const { view } = await runJob(fixAndCommit(), { pullRequest: pullRequest(github) });
    expect(view.state, JSON.stringify(view.error)).toBe("succeeded");
    expect(view.result.prDescriptionSource).toBe("fallback");
    expect(view.result.prUrl).toBe(existing.html_url);
    expect(github.requestsTo("update")).toHaveLength(0);
    expect(github.requestsTo("create")).toHaveLength(0);
    expect(github.pulls[0]).toMatchObject({ title: "Kept", body: "Kept body." });
  }, 180_000);

  it("fails pr-failed with the status on a refused token, quoting no token", async () => {
    const github = await startGithubFixture({ token: "ghs_anotherTokenTheJobDoesNotHave0123456789" });
    cleanups.push(() => github.close());
    const { view } = await runJob(fixAndCommit(), { pullRequest: pullRequest(github) });
    expect(view.state).toBe("failed");
    expect(view.error.code).toBe("pr-failed");
    expect(view.error.evidence.pr.status).toBe(401);
    expect(JSON.stringify(view)).not.toContain(fixtureToken);
  }, 180_000);

  it("pushes with no API call in plain-git mode, and opens no PR after a spent validation", async () => {
    const github = await fixture();
    const plain = await runJob(fixAndCommit(), { jobId: "job-plain" });
    expect(plain.view.state, JSON.stringify(plain.view.error)).toBe("succeeded");
    expect(plain.view.result.prUrl).toBeUndefined();
    expect((await git(["log", "--format=%s", plain.branch], plain.bare)).split("\n")[0]).toBe("Fix add");
    const wrong = "export function add(a, b) {\n  return a * b;\n}\n";
    const failed = await runJob([patchMath(buggyMath, wrong), command("git commit -qam 'Try'"), { text: "Tried." }], {
      jobId: "job-red",
      pullRequest: pullRequest(github),
      validationChecks: { commands: [{ name: "unit", command: "node --test" }], maxRepairPasses: 0 },
    });
    expect(failed.view.error.code).toBe("validation-failed");
    expect(github.requests).toHaveLength(0);
  }, 180_000);

  it("folds the repository's PR template into the pass; with a template the briefing's heading is not the title", async () => {
    const github = await fixture();
    const steps = [
      ...fixAndCommit().slice(0, 2),
      writeBriefing("# A heading\n\n## Summary\nFixed add."),
      { text: "Fixed." },
    ];
    const { view, model } = await runJob(
      steps,
      { pullRequest: pullRequest(github) },
      { files: { ".github/PULL_REQUEST_TEMPLATE.md": "## Summary\n\n## Testing\n" } },
    );
    expect(view.state, JSON.stringify(view.error)).toBe("succeeded");
    expect(model.requests[0]?.system).toContain("## Testing");
    const sent = github.requestsTo("create")[0]?.body as { title: string };
    expect(sent.title).toBe("Fix add()");
  }, 180_000);
});
