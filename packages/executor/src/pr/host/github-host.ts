// The PR host adapter for GitHub (and GitHub Enterprise Server) over its REST API.
import { maxResponseBytes } from "./bounded-body.js";
import { isOpenFromHead, parsePullRequest } from "./github-answer.js";
import { type GithubClient, githubRequest } from "./github-request.js";
import type { PullRequest, PullRequestHost } from "./pull-request.js";
import { PullRequestError } from "./pull-request-error.js";
import { defaultMaxRateLimitWaitMs, defaultRateLimitBackoffMs } from "./rate-limit.js";

/** The public GitHub API root. */
export const defaultGithubApiURL = "https://api.github.com";
/** How many times a rate-limited call is retried, unless set. */
export const defaultGithubMaxRetries = 3;
/** How long one attempt of a call may take, answer read included, unless set: 30 s. */
export const defaultGithubTimeoutMs = 30_000;

/** How `githubHost` reaches one repository. */
export interface GithubHostOptions {
  /** `owner/name` of the repository the pull requests are opened in. */
  readonly repository: string;
  /** A token that may read and write its pull requests; sent as `Bearer`, never in a message. */
  readonly token: string;
  /** The API root, default `https://api.github.com`; may carry a path prefix (`https://host/api/v3`). */
  readonly apiURL?: string;
  /** Stops every call and retry wait; a stopped call rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Waits before a rate-limit retry (for tests); default a timer the signal cuts short. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** The fetch to use; default the global one. */
  readonly fetch?: typeof fetch;
  /** Retries of a rate-limited call (429, or a 403 that says the limit is spent), default 3, at least 0. */
  readonly maxRetries?: number;
  /** The cap on one rate-limit wait, default 60 000 ms, at least 0: a longer `retry-after` is cut to it. */
  readonly maxWaitMs?: number;
  /** The first backoff step when GitHub names no wait, default 1 000 ms, doubling per retry. */
  readonly backoffMs?: number;
  /** How long one attempt may take, answer read included, default 30 000 ms, at least 1. */
  readonly timeoutMs?: number;
  /** The current time in epoch milliseconds, for `x-ratelimit-reset`; default `Date.now`. */
  readonly now?: () => number;
  /** Applied to every error message (the job's redactor); the token is removed in any case. */
  readonly scrub?: (text: string) => string;
}

const namePart = /^[A-Za-z0-9_.-]+$/;

/** A setting that cannot work, refused when the host is made rather than at the first call. */
function refuse(message: string): PullRequestError {
  return new PullRequestError(`GitHub host: ${message}`);
}

function count(value: number | undefined, fallback: number, least: number, name: string): number {
  const chosen = value ?? fallback;
  if (!Number.isFinite(chosen) || chosen < least) throw refuse(`${name} must be a number of at least ${least}`);
  return chosen;
}

/** The API root without a trailing slash, so `/repos/…` joins under a path prefix. */
function apiRoot(apiURL: string): string {
  let url: URL;
  try {
    url = new URL(apiURL);
  } catch {
    throw refuse("apiURL is not a URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw refuse("apiURL must be http or https");
  if (url.username || url.password) throw refuse("apiURL must not carry credentials");
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/**
 * A `PullRequestHost` for one GitHub repository over REST (`/repos/{owner}/{repo}/pulls`).
 * Options it cannot use (a repository that is not `owner/name`, an apiURL that is not http(s),
 * a missing token, a negative bound) throw `PullRequestError` here.
 */
export function githubHost(options: GithubHostOptions): PullRequestHost {
  const [owner, name, ...rest] = options.repository.split("/");
  if (!owner || !name || rest.length > 0 || !namePart.test(owner) || !namePart.test(name)) {
    throw refuse("repository must be owner/name");
  }
  if (!options.token) throw refuse("a token is required");
  const client: GithubClient = {
    root: apiRoot(options.apiURL ?? defaultGithubApiURL),
    token: options.token,
    fetch: options.fetch ?? fetch,
    sleep: options.sleep,
    signal: options.signal,
    maxRetries: Math.floor(count(options.maxRetries, defaultGithubMaxRetries, 0, "maxRetries")),
    maxWaitMs: count(options.maxWaitMs, defaultMaxRateLimitWaitMs, 0, "maxWaitMs"),
    backoffMs: count(options.backoffMs, defaultRateLimitBackoffMs, 0, "backoffMs"),
    timeoutMs: count(options.timeoutMs, defaultGithubTimeoutMs, 1, "timeoutMs"),
    maxResponseBytes,
    now: options.now ?? Date.now,
    scrub: options.scrub ?? ((text) => text),
  };
  const pulls = `/repos/${owner}/${name}/pulls`;
  const pullRequest = (value: unknown, method: string, path: string): PullRequest => {
    const parsed = parsePullRequest(value);
    if (!parsed)
      throw new PullRequestError(
        client.scrub(`GitHub ${method} ${path} answered something that is not a pull request`),
      );
    return parsed;
  };
  return {
    async findOpen(head) {
      const path = `${pulls}?${new URLSearchParams({ head: `${head.owner}:${head.branch}`, state: "open" })}`;
      const answer = await githubRequest(client, "GET", path);
      if (!Array.isArray(answer))
        throw new PullRequestError(client.scrub(`GitHub GET ${path} answered something that is not a list`));
      const found = answer.find((entry) => isOpenFromHead(entry, head.owner, head.branch));
      return found === undefined ? undefined : pullRequest(found, "GET", path);
    },
    async create(request) {
      const { title, body, head, base } = request;
      const answer = await githubRequest(client, "POST", pulls, {
        title,
        body,
        head,
        base,
        draft: request.draft ?? false,
      });
      return pullRequest(answer, "POST", pulls);
    },
    async update(number, change) {
      if (!Number.isSafeInteger(number) || number < 1) throw refuse("a pull request number is a positive integer");
      const path = `${pulls}/${number}`;
      const patch = {
        ...(change.title === undefined ? {} : { title: change.title }),
        ...(change.body === undefined ? {} : { body: change.body }),
      };
      return pullRequest(await githubRequest(client, "PATCH", path, patch), "PATCH", path);
    },
  };
}
