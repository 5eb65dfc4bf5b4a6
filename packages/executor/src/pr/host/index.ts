export { maxResponseBytes } from "./bounded-body.js";
export {
  type EnsuredPullRequest,
  type EnsurePullRequestRequest,
  ensurePullRequest,
} from "./ensure-pull-request.js";
export {
  defaultGithubApiURL,
  defaultGithubMaxRetries,
  defaultGithubTimeoutMs,
  type GithubHostOptions,
  githubHost,
} from "./github-host.js";
export { githubUserAgent } from "./github-request.js";
export type {
  NewPullRequest,
  PullRequest,
  PullRequestChange,
  PullRequestHead,
  PullRequestHost,
} from "./pull-request.js";
export { PullRequestError, type PullRequestErrorOptions } from "./pull-request-error.js";
export { defaultMaxRateLimitWaitMs, defaultRateLimitBackoffMs } from "./rate-limit.js";
