// The GitHub pull-request host against a loopback REST fixture, over the real fetch: the
// headers each call sends, the already-exists race, rate-limit retries and their waits,
// failures as pr-failed without the token, the head filter, refreshes, an API path prefix
// and the 1 MiB bound on an answer.
import { afterEach, describe, expect, it } from "vitest";
import {
  ensurePullRequest,
  type GithubHostOptions,
  githubHost,
  githubUserAgent,
  maxResponseBytes,
  PullRequestError,
} from "../src/pr/host/index.js";
import { alreadyExists, type GithubFixture, rateLimited, startGithubFixture } from "./github-fixture.ts";

const fixtures: GithubFixture[] = [];
afterEach(async () => {
  for (const fixture of fixtures.splice(0)) await fixture.close();
});

async function fixture(options: Parameters<typeof startGithubFixture>[0] = {}): Promise<GithubFixture> {
  const started = await startGithubFixture(options);
  fixtures.push(started);
  return started;
}

/** A host on `github`, its retry waits recorded instead of slept. */
function hostOn(github: GithubFixture, options: Partial<GithubHostOptions> = {}) {
  const waits: number[] = [];
  const host = githubHost({
    repository: github.repository,
    token: github.token,
    apiURL: github.apiURL,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...options,
  });
  return { host, waits };
}

/** The rejection of `promise`, which must reject with a PullRequestError. */
async function failure(promise: Promise<unknown>): Promise<PullRequestError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(PullRequestError);
  return error as PullRequestError;
}

const request = { owner: "acme", head: "castellan/job-1", base: "main", title: "Add widgets", body: "It adds them." };

describe("githubHost and ensurePullRequest", () => {
  it("opens a pull request with GitHub's headers when none is open", async () => {
    const github = await fixture();
    const { host } = hostOn(github);
    const ensured = await ensurePullRequest(host, request);
    expect(ensured).toMatchObject({ created: true, refreshed: false });
    expect(ensured.pullRequest).toEqual({
      number: 1,
      url: `${github.apiURL}/acme/widgets/pull/1`,
      title: "Add widgets",
      body: "It adds them.",
      headSha: github.pulls[0]?.head.sha,
    });
    expect(github.requests.map((seen) => seen.route)).toEqual(["list", "create"]);
    const created = github.requestsTo("create")[0]!;
    expect(created.path).toBe("/repos/acme/widgets/pulls");
    expect(created.body).toEqual({
      title: "Add widgets",
      body: "It adds them.",
      head: "castellan/job-1",
      base: "main",
      draft: false,
    });
    for (const seen of github.requests) {
      expect(seen.headers.authorization).toBe(`Bearer ${github.token}`);
      expect(seen.headers.accept).toBe("application/vnd.github+json");
      expect(seen.headers["x-github-api-version"]).toBe("2022-11-28");
      expect(seen.headers["user-agent"]).toBe(githubUserAgent);
    }
    expect(githubUserAgent).toMatch(/^castellan-executor\//);
    expect(created.headers["content-type"]).toBe("application/json");
  });

  it("sends draft: true when asked", async () => {
    const github = await fixture();
    const { host } = hostOn(github);
    await ensurePullRequest(host, { ...request, draft: true });
    expect(github.requestsTo("create")[0]?.body).toMatchObject({ draft: true });
    expect(github.pulls[0]?.draft).toBe(true);
  });

  it("uses the pull request a 422 says already exists, without a second create", async () => {
    const github = await fixture();
    const existing = github.seed({ head: request.head, title: "Earlier", body: "From a run before." });
    // The first lookup misses it, as when another attempt opened it in between.
    github.queue("list", { status: 200, body: [] });
    const { host } = hostOn(github);
    const ensured = await ensurePullRequest(host, request);
    expect(ensured).toEqual({
      pullRequest: {
        number: existing.number,
        url: existing.html_url,
        title: "Earlier",
        body: "From a run before.",
        headSha: existing.head.sha,
      },
      created: false,
      refreshed: false,
    });
    expect(github.requests.map((seen) => seen.route)).toEqual(["list", "create", "list"]);
  });

  it("refreshes the pull request after the already-exists race when refresh asks", async () => {
    const github = await fixture();
    github.seed({ head: request.head, title: "Earlier" });
    github.queue("list", { status: 200, body: [] });
    const { host } = hostOn(github);
    const ensured = await ensurePullRequest(host, { ...request, refresh: () => ({ title: "Retitled" }) });
    expect(ensured).toMatchObject({ created: false, refreshed: true, pullRequest: { title: "Retitled" } });
    expect(github.requestsTo("update")[0]?.body).toEqual({ title: "Retitled" });
  });

  it("fails a 422 that is not already-exists as pr-failed, without looking again", async () => {
    const github = await fixture();
    github.queue("create", {
      status: 422,
      body: {
        message: "Validation Failed",
        errors: [{ resource: "PullRequest", code: "custom", message: "No commits between main and castellan/job-1" }],
      },
    });
    const { host } = hostOn(github);
    const error = await failure(ensurePullRequest(host, request));
    expect(error).toMatchObject({ code: "pr-failed", status: 422, alreadyExists: false });
    expect(error.message).toContain("POST /repos/acme/widgets/pulls");
    expect(error.message).toContain("422");
    expect(error.message).toContain("Validation Failed; No commits between main and castellan/job-1");
    expect(github.requests.map((seen) => seen.route)).toEqual(["list", "create"]);
  });

  it("fails when a 422 says one exists but none is open", async () => {
    const github = await fixture();
    github.queue("create", alreadyExists("acme", request.head));
    const { host } = hostOn(github);
    const error = await failure(ensurePullRequest(host, request));
    expect(error).toMatchObject({ code: "pr-failed", status: 422 });
    expect(error.message).toContain("none is open");
  });

  it("retries a 429 honouring retry-after, then succeeds", async () => {
    const github = await fixture();
    github.queue("create", rateLimited({ retryAfter: 0 }), rateLimited({ retryAfter: 1 }));
    const { host, waits } = hostOn(github);
    const created = await host.create({ title: "T", body: "B", head: "work", base: "main" });
    expect(created.number).toBe(1);
    expect(waits).toEqual([0, 1_000]);
    expect(github.requestsTo("create")).toHaveLength(3);
    expect(github.pulls).toHaveLength(1);
  });

  it("waits for x-ratelimit-reset without retry-after, backs off without either, and caps a wait", async () => {
    const github = await fixture();
    const now = 1_700_000_000_000;
    github.queue(
      "list",
      rateLimited({ status: 403, remaining: 0, reset: now / 1_000 + 10 }),
      rateLimited({ reset: now / 1_000 - 5 }),
      rateLimited({ retryAfter: 3_600 }),
    );
    const { host, waits } = hostOn(github, { now: () => now, maxWaitMs: 30_000 });
    expect(await host.findOpen({ owner: "acme", branch: "work" })).toBeUndefined();
    // The reset ten seconds ahead; a reset already past is backoff step 2 (1 s doubled); an hour is capped.
    expect(waits).toEqual([10_000, 2_000, 30_000]);
  });

  it("sleeps for real between retries when no sleep is given", async () => {
    const github = await fixture();
    github.queue("create", rateLimited({ retryAfter: 1 }));
    const host = githubHost({
      repository: github.repository,
      token: github.token,
      apiURL: github.apiURL,
      maxWaitMs: 50,
    });
    const started = performance.now();
    await host.create({ title: "T", body: "B", head: "work", base: "main" });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(45);
    expect(elapsed).toBeLessThan(1_000);
    expect(github.requestsTo("create")).toHaveLength(2);
  });

  it("retries a 403 that says the rate limit is spent, but not a plain 403", async () => {
    const github = await fixture();
    github.queue("list", rateLimited({ status: 403, remaining: 0 }), rateLimited({ status: 403, retryAfter: 2 }));
    const { host, waits } = hostOn(github);
    expect(await host.findOpen({ owner: "acme", branch: "work" })).toBeUndefined();
    expect(waits).toEqual([1_000, 2_000]);
    expect(github.requestsTo("list")).toHaveLength(3);

    github.queue("list", { status: 403, body: { message: "Resource not accessible by integration" } });
    const error = await failure(host.findOpen({ owner: "acme", branch: "work" }));
    expect(error).toMatchObject({ code: "pr-failed", status: 403 });
    expect(error.message).toContain("Resource not accessible by integration");
    expect(github.requestsTo("list")).toHaveLength(4);
    expect(waits).toHaveLength(2);
  });

  it("gives up after 3 retries with pr-failed and the last status", async () => {
    const github = await fixture();
    github.queue("create", ...Array.from({ length: 5 }, () => rateLimited({ retryAfter: 1 })));
    const { host, waits } = hostOn(github);
    const error = await failure(host.create({ title: "T", body: "B", head: "work", base: "main" }));
    expect(error).toMatchObject({ code: "pr-failed", status: 429 });
    expect(error.message).toContain("still rate-limited after 3 retries");
    expect(error.message).toContain("API rate limit exceeded");
    expect(waits).toEqual([1_000, 1_000, 1_000]);
    expect(github.requestsTo("create")).toHaveLength(4);
    expect(github.pulls).toHaveLength(0);
  });

  it("honours maxRetries", async () => {
    const github = await fixture();
    github.queue("list", rateLimited(), rateLimited());
    const { host, waits } = hostOn(github, { maxRetries: 1 });
    const error = await failure(host.findOpen({ owner: "acme", branch: "work" }));
    expect(error.status).toBe(429);
    expect(error.message).toContain("after 1 retry)");
    expect(waits).toEqual([1_000]);
  });

  it("fails a wrong token with 401 and never quotes it", async () => {
    const github = await fixture();
    const wrong = "ghs_wrongToken9876543210zyxwvutsrqpo";
    const { host } = hostOn(github, { token: wrong });
    const error = await failure(host.findOpen({ owner: "acme", branch: "work" }));
    expect(error).toMatchObject({ name: "PullRequestError", code: "pr-failed", status: 401 });
    expect(error.message).toBe(
      "GitHub GET /repos/acme/widgets/pulls?head=acme%3Awork&state=open answered 401: Bad credentials",
    );
    expect(error.message).not.toContain(wrong);
    expect(github.requests[0]?.headers.authorization).toBe(`Bearer ${wrong}`);
  });

  it("scrubs the message, and takes the token out even of an echo", async () => {
    const github = await fixture();
    github.script((seen) =>
      seen.route === "update"
        ? { status: 500, body: { message: `token ${github.token} and secret-value-123 are broken` } }
        : undefined,
    );
    const { host } = hostOn(github, { scrub: (text) => text.replaceAll("secret-value-123", "[scrubbed]") });
    const error = await failure(host.update(7, { title: "x" }));
    expect(error.status).toBe(500);
    expect(error.message).toBe(
      "GitHub PATCH /repos/acme/widgets/pulls/7 answered 500: token [redacted] and [scrubbed] are broken",
    );
  });

  it("fails a network failure as pr-failed with no status", async () => {
    const github = await fixture();
    const apiURL = github.apiURL;
    await fixtures.splice(0)[0]?.close();
    const host = githubHost({ repository: "acme/widgets", token: github.token, apiURL });
    const error = await failure(host.findOpen({ owner: "acme", branch: "work" }));
    expect(error).toMatchObject({ code: "pr-failed", status: undefined });
    expect(error.message).toMatch(/^GitHub GET \/repos\/acme\/widgets\/pulls\?\S+ failed: ECONNREFUSED$/);
  });

  it("finds only an open pull request from owner:branch", async () => {
    const github = await fixture();
    github.seed({ head: "work", state: "closed", title: "Closed" });
    github.seed({ head: "other", title: "Other" });
    const open = github.seed({ head: "work", title: "Open" });
    const { host } = hostOn(github);
    expect(await host.findOpen({ owner: "acme", branch: "work" })).toMatchObject({
      number: open.number,
      title: "Open",
    });
    expect(await host.findOpen({ owner: "acme", branch: "none" })).toBeUndefined();
    const listed = github.requestsTo("list");
    expect(listed[0]?.query).toEqual({ head: "acme:work", state: "open" });
    expect(listed[1]?.query).toEqual({ head: "acme:none", state: "open" });

    // A host that ignores the filter and lists everything still yields only the right one.
    github.script((seen) => (seen.route === "list" ? { status: 200, body: github.pulls } : undefined));
    expect(await host.findOpen({ owner: "acme", branch: "work" })).toMatchObject({ title: "Open" });
    expect(await host.findOpen({ owner: "elsewhere", branch: "work" })).toBeUndefined();
  });

  it("refreshes an open pull request's text with PATCH only when refresh returns a change", async () => {
    const github = await fixture();
    const existing = github.seed({ head: request.head, title: "Old title", body: "Old body" });
    const { host } = hostOn(github);
    const seen: string[] = [];
    const ensured = await ensurePullRequest(host, {
      ...request,
      refresh: (pull) => {
        seen.push(pull.title);
        return { title: "New title", body: "New body" };
      },
    });
    expect(seen).toEqual(["Old title"]);
    expect(ensured).toMatchObject({ created: false, refreshed: true });
    expect(ensured.pullRequest).toMatchObject({ number: existing.number, title: "New title", body: "New body" });
    const patched = github.requestsTo("update");
    expect(patched.map((entry) => [entry.path, entry.body])).toEqual([
      [`/repos/acme/widgets/pulls/${existing.number}`, { title: "New title", body: "New body" }],
    ]);
    expect(github.pulls[0]).toMatchObject({ title: "New title", body: "New body" });

    const left = await ensurePullRequest(host, { ...request, refresh: () => undefined });
    expect(left).toMatchObject({ created: false, refreshed: false, pullRequest: { title: "New title" } });
    const same = await ensurePullRequest(host, {
      ...request,
      refresh: () => ({ title: "New title", body: "New body" }),
    });
    expect(same.refreshed).toBe(false);
    const unasked = await ensurePullRequest(host, request);
    expect(unasked.refreshed).toBe(false);
    expect(github.requestsTo("update")).toHaveLength(1);
    expect(github.requestsTo("create")).toHaveLength(0);
  });

  it("joins an apiURL with a path prefix, with or without a trailing slash", async () => {
    const github = await fixture({ prefix: "/api/v3" });
    expect(github.apiURL).toMatch(/\/api\/v3$/);
    for (const apiURL of [github.apiURL, `${github.apiURL}/`]) {
      const { host } = hostOn(github, { apiURL });
      await ensurePullRequest(host, { ...request, head: `branch-${github.pulls.length}` });
    }
    expect(github.requests.map((seen) => `${seen.method} ${seen.path}`)).toEqual([
      "GET /api/v3/repos/acme/widgets/pulls",
      "POST /api/v3/repos/acme/widgets/pulls",
      "GET /api/v3/repos/acme/widgets/pulls",
      "POST /api/v3/repos/acme/widgets/pulls",
    ]);
    expect(github.pulls).toHaveLength(2);
  });

  it("refuses an answer over 1 MiB, announced or not", async () => {
    const github = await fixture();
    const huge = JSON.stringify([{ padding: "x".repeat(2 * 1_048_576) }]);
    const { host } = hostOn(github);
    for (const chunked of [false, true]) {
      github.queue("list", { status: 200, raw: huge, chunked });
      const error = await failure(host.findOpen({ owner: "acme", branch: "work" }));
      expect(error).toMatchObject({ code: "pr-failed", status: 200 });
      expect(error.message).toContain(`more than ${maxResponseBytes} bytes; refused`);
    }
    expect(maxResponseBytes).toBe(1_048_576);
    // The connection is still good for the next call.
    expect(await host.findOpen({ owner: "acme", branch: "work" })).toBeUndefined();
  });

  it("stops on the signal with its reason, during a retry wait too", async () => {
    const github = await fixture();
    const stopped = new AbortController();
    stopped.abort(new Error("job stopped"));
    const { host } = hostOn(github, { signal: stopped.signal });
    await expect(host.findOpen({ owner: "acme", branch: "work" })).rejects.toThrow("job stopped");
    expect(github.requests).toHaveLength(0);

    const waiting = new AbortController();
    github.script(() => {
      setTimeout(() => waiting.abort(new Error("stopped while waiting")), 10);
      return rateLimited({ retryAfter: 60 });
    });
    const real = githubHost({
      repository: "acme/widgets",
      token: github.token,
      apiURL: github.apiURL,
      signal: waiting.signal,
    });
    const started = performance.now();
    await expect(real.findOpen({ owner: "acme", branch: "work" })).rejects.toThrow("stopped while waiting");
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(github.requests).toHaveLength(1);
  });

  it("refuses options it cannot use when the host is made", () => {
    const base = { repository: "acme/widgets", token: "ghs_x", apiURL: "http://127.0.0.1:9" };
    for (const options of [
      { ...base, repository: "acme" },
      { ...base, repository: "acme/widgets/extra" },
      { ...base, repository: "acme/wid gets" },
      { ...base, token: "" },
      { ...base, apiURL: "ftp://127.0.0.1/" },
      { ...base, apiURL: "not a url" },
      { ...base, maxRetries: -1 },
      { ...base, timeoutMs: 0 },
    ]) {
      expect(() => githubHost(options)).toThrow(PullRequestError);
    }
  });
});
