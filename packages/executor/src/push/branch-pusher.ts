import type { CheckoutGit } from "../git/checkout-git.js";
import { GitCommandError } from "../git/git.js";
import type { PublishRepository } from "../git/publish-repository.js";
import { JobFailure } from "../registry/job-failure.js";

/** What one push did. */
export interface PushResult {
  /** False when the tip was already published (nothing new). */
  readonly pushed: boolean;
  /** The commit the remote's work branch now holds, as far as this job knows. */
  readonly sha: string;
  /** How the push was guarded: `plain` (a fast-forward or a new branch) or `lease`. */
  readonly mode?: "plain" | "lease";
}

const rejected = /\[rejected\]|\[remote rejected\]|stale info|non-fast-forward|fetch first/;

/**
 * Publishes the work branch, lease-guarded. Each push names an explicit
 * `<sha>:refs/heads/<branch>` and takes the published sha from that push (a single-branch clone
 * has no tracking ref to read). A pass's first push is plain; later ones carry
 * `--force-with-lease=refs/heads/<branch>:<what this pass published>`, so the run's own amend
 * lands while anyone else's commits refuse it, but only while HEAD still contains the pass's
 * start tip: a rewrite below it goes without a lease, and git refuses it as a non-fast-forward.
 * A refused push is `branch-contended` (or `history-rewritten` when HEAD left the start tip,
 * whether or not the pass had pushed yet). Pushes run one at a time, each from the HEAD of its
 * own start: one asked for while another runs waits for it, then publishes what is new. The
 * checkout's HEAD is first received into the server's publish repository (a bundle written in
 * the sandbox); the ancestry check and the push run there, never in the checkout.
 */
export class BranchPusher {
  private passStart: string | undefined;
  private passPublished: string | undefined;
  private published: string | undefined;
  /** Where the job's first pass started: the clone's tip, nothing this job made. */
  private cloneTip: string | undefined;
  private inFlight: Promise<PushResult> | undefined;
  /** Every push this job made, in order (for the result's diagnostics and the tests). */
  readonly pushes: { readonly sha: string; readonly mode: "plain" | "lease"; readonly at: string }[] = [];

  constructor(
    private readonly options: {
      /** The job's checkout, reached only through the sandbox. */
      readonly checkout: CheckoutGit;
      /** The server-owned repository the push runs from. */
      readonly publish: PublishRepository;
      /** The remote's URL (the token never in it). */
      readonly url: string;
      readonly branch: string;
      /** What the push alone adds to git's environment: the token's header. */
      readonly auth: Readonly<Record<string, string>>;
      /** What the remote's branch held when the job started, if it had it (a resumed job). */
      readonly remoteTip?: string;
    },
  ) {
    this.published = options.remoteTip;
  }

  /** A new pass starts from `startTip`: its first push is plain again. */
  passStarted(startTip: string): void {
    this.cloneTip ??= startTip;
    this.passStart = startTip;
    this.passPublished = undefined;
  }

  /** The sha the remote's work branch holds after this job's last push, if any. */
  get publishedSha(): string | undefined {
    return this.published;
  }

  /** Resolves once no push is running (whatever the running one's outcome). */
  async settled(): Promise<void> {
    await this.inFlight?.catch(() => undefined);
  }

  /**
   * Pushes the tip when it is not published yet. One push at a time: a caller that comes while
   * one runs waits for it (whatever its outcome), then pushes the tip of its own time, so what
   * was committed meanwhile is never taken for published. `signal` replaces the job's (the last
   * checkpoint of a stopped job has its own).
   */
  push(signal?: AbortSignal): Promise<PushResult> {
    return this.queue(signal, false);
  }

  /**
   * A checkpoint: `push`, except that the clone's own tip is not pushed while nothing is
   * published (the agent has committed nothing yet, so there is nothing to keep).
   */
  checkpoint(signal?: AbortSignal): Promise<PushResult> {
    return this.queue(signal, true);
  }

  private queue(signal: AbortSignal | undefined, checkpoint: boolean): Promise<PushResult> {
    const before = this.inFlight?.catch(() => undefined) ?? Promise.resolve();
    const run: Promise<PushResult> = before
      .then(() => this.pushOnce(signal, checkpoint))
      .finally(() => {
        if (this.inFlight === run) this.inFlight = undefined;
      });
    this.inFlight = run;
    return run;
  }

  private async pushOnce(signal: AbortSignal | undefined, checkpoint: boolean): Promise<PushResult> {
    const { checkout, publish, branch } = this.options;
    const head = await publish.receive(checkout, signal ? { signal } : {});
    if (head === undefined) throw new GitCommandError("git push failed: the checkout has no commit to publish", null);
    if (head === this.published) return { pushed: false, sha: head };
    if (checkpoint && this.published === undefined && head === this.cloneTip) return { pushed: false, sha: head };
    // Whether HEAD still contains where the pass started: the lease's condition, and what a
    // refused push is told apart by (also on the pass's first, plain push).
    const containsStart = this.passStart === undefined ? true : await publish.isAncestor(this.passStart, head, signal);
    const lease = this.passPublished !== undefined && containsStart ? this.passPublished : undefined;
    const belowStart = !containsStart;
    try {
      await publish.push({
        url: this.options.url,
        commit: head,
        branch,
        auth: this.options.auth,
        ...(lease ? { lease } : {}),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if (error instanceof GitCommandError && rejected.test(error.message)) {
        if (belowStart) {
          throw new JobFailure(
            "history-rewritten",
            `The push of ${branch} was refused: HEAD no longer contains ${this.passStart}, where this pass started, and published commits are never rewritten.`,
            { push: { branch, head, passStart: this.passStart ?? null } },
          );
        }
        throw new JobFailure(
          "branch-contended",
          `The push of ${branch} was refused: the remote branch moved under this job (another writer pushed to it).`,
          { push: { branch, head, expected: this.passPublished ?? this.published ?? null } },
        );
      }
      throw error;
    }
    const mode = lease ? "lease" : "plain";
    this.published = head;
    this.passPublished = head;
    this.pushes.push({ sha: head, mode, at: new Date().toISOString() });
    return { pushed: true, sha: head, mode };
  }
}

/**
 * Checkpoints during an agent pass: every `intervalMs`, the tip is pushed when it is not
 * published yet (a loss window, not a rate: a tick whose tip is published does nothing, nor one
 * before the job's first commit, and a tick while a push runs is skipped). A push that is
 * refused goes to `onFailure` (the job fails with its code); another error is logged by
 * `onError` and the next tick tries again.
 */
export function startCheckpoints(
  pusher: BranchPusher,
  intervalMs: number,
  handlers: { readonly onFailure: (failure: JobFailure) => void; readonly onError: (error: unknown) => void },
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    pusher
      .checkpoint()
      .catch((error: unknown) => (error instanceof JobFailure ? handlers.onFailure(error) : handlers.onError(error)))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  return () => clearInterval(timer);
}
