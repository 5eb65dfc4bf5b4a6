// The PR step's one call: make sure exactly one open pull request carries the work, whether
// this run opens it or a resumed run (or a racing replay) already did.
import type { PullRequest, PullRequestChange, PullRequestHost } from "./pull-request.js";
import { PullRequestError } from "./pull-request-error.js";

/** What `ensurePullRequest` is asked for. */
export interface EnsurePullRequestRequest {
  /** The owner of the repository the head branch is in (the host's head filter is `owner:branch`). */
  readonly owner: string;
  /** The branch with the work. */
  readonly head: string;
  /** The branch it is to be merged into. */
  readonly base: string;
  readonly title: string;
  readonly body: string;
  /** Opened as a draft; false when absent. Not applied to a pull request that already exists. */
  readonly draft?: boolean;
  /**
   * Asked about a pull request that was already open: the change to make to its text, or
   * undefined to leave it (a human may have edited it). Absent: an existing one is left as it is.
   */
  readonly refresh?: (existing: PullRequest) => PullRequestChange | undefined;
}

/** What `ensurePullRequest` found or made. */
export interface EnsuredPullRequest {
  readonly pullRequest: PullRequest;
  /** This call opened it. */
  readonly created: boolean;
  /** This call changed its title or description. */
  readonly refreshed: boolean;
}

/**
 * The open pull request from `head`: the one already open (a resumed job's) if there is one,
 * its text refreshed when `refresh` asks for a change; otherwise a new one. When the host
 * refuses the new one because one already exists (opened between the lookup and the create),
 * that one is looked up and used. Every other failure rejects with `PullRequestError`.
 */
export async function ensurePullRequest(
  host: PullRequestHost,
  request: EnsurePullRequestRequest,
): Promise<EnsuredPullRequest> {
  const head = { owner: request.owner, branch: request.head };
  const open = await host.findOpen(head);
  if (open) return refreshed(host, open, request.refresh);
  let pullRequest: PullRequest;
  try {
    pullRequest = await host.create({
      title: request.title,
      body: request.body,
      head: request.head,
      base: request.base,
      draft: request.draft ?? false,
    });
  } catch (error) {
    if (!(error instanceof PullRequestError && error.alreadyExists)) throw error;
    const raced = await host.findOpen(head);
    if (!raced) {
      throw new PullRequestError(
        `The host says a pull request from ${request.owner}:${request.head} already exists, but none is open`,
        { status: error.status, cause: error },
      );
    }
    return refreshed(host, raced, request.refresh);
  }
  return { pullRequest, created: true, refreshed: false };
}

/** `existing` after the change `refresh` asks for; a change that matches what it already says is not sent. */
async function refreshed(
  host: PullRequestHost,
  existing: PullRequest,
  refresh: EnsurePullRequestRequest["refresh"],
): Promise<EnsuredPullRequest> {
  const change = refresh?.(existing);
  const title = change?.title !== undefined && change.title !== existing.title ? change.title : undefined;
  const body = change?.body !== undefined && change.body !== existing.body ? change.body : undefined;
  if (title === undefined && body === undefined) return { pullRequest: existing, created: false, refreshed: false };
  const pullRequest = await host.update(existing.number, {
    ...(title === undefined ? {} : { title }),
    ...(body === undefined ? {} : { body }),
  });
  return { pullRequest, created: false, refreshed: true };
}
