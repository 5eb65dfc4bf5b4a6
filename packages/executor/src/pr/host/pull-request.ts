/** An open pull request as the job server sees it, whatever the host. */
export interface PullRequest {
  /** The host's number for it (GitHub's `number`), a positive integer. */
  readonly number: number;
  /** The page a human opens (GitHub's `html_url`), never an API address. */
  readonly url: string;
  readonly title: string;
  /** The description; empty when the host has none (GitHub answers `null`). */
  readonly body: string;
  /** The commit the head branch points at, when the host said. */
  readonly headSha?: string;
}

/** The branch a pull request is opened from: the owner of the repository it lives in, and its name. */
export interface PullRequestHead {
  readonly owner: string;
  readonly branch: string;
}

/** What opening a pull request asks for. */
export interface NewPullRequest {
  readonly title: string;
  readonly body: string;
  /** The branch the changes are on, in the host repository itself (no `owner:` prefix). */
  readonly head: string;
  /** The branch they are to be merged into. */
  readonly base: string;
  /** Opened as a draft; false when absent. */
  readonly draft?: boolean;
}

/** A change to an open pull request's text; an absent field is left as it is. */
export interface PullRequestChange {
  readonly title?: string;
  readonly body?: string;
}

/**
 * The three calls the PR step makes of a code host. Every failure rejects with a
 * `PullRequestError` (`pr-failed`), except a stop through the caller's signal, which rejects
 * with the signal's reason.
 */
export interface PullRequestHost {
  /** The open pull request from `head`, if there is one (the first the host lists). */
  findOpen(head: PullRequestHead): Promise<PullRequest | undefined>;
  /** Opens a pull request; the host refuses a second open one for the same head and base. */
  create(request: NewPullRequest): Promise<PullRequest>;
  /** Changes the title and/or description of pull request `number`. */
  update(number: number, change: PullRequestChange): Promise<PullRequest>;
}
