/** What a `PullRequestError` is built with besides its message. */
export interface PullRequestErrorOptions {
  /** The HTTP status the host answered; absent when no answer arrived (a network failure, a timeout). */
  readonly status?: number;
  /** The host refused to open a pull request because one is already open for the head. */
  readonly alreadyExists?: boolean;
  readonly cause?: unknown;
}

/**
 * A call to the code host that failed the PR step: the job's error code is `pr-failed`. The
 * message names the request and the host's own explanation, scrubbed; it never holds the token.
 */
export class PullRequestError extends Error {
  /** The kebab-case code the job's `error.code` carries. */
  readonly code = "pr-failed";
  /** The HTTP status the host answered, or undefined when no answer arrived. */
  readonly status: number | undefined;
  /** True only for the host's "a pull request already exists for this head" refusal. */
  readonly alreadyExists: boolean;

  constructor(message: string, options: PullRequestErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "PullRequestError";
    this.status = options.status;
    this.alreadyExists = options.alreadyExists ?? false;
  }
}
