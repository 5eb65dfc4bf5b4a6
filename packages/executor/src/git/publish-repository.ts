import { constants } from "node:fs";
import { open, rm } from "node:fs/promises";
import { join } from "node:path";
import { makePrivateDirectory } from "@castellan/node-runner";
import type { CheckoutGit, CheckoutGitCallOptions } from "./checkout-git.js";
import { GitCommandError, type GitContext, runGit } from "./git.js";

/** The largest bundle of new commits taken from a checkout at once. Default 1 GiB. */
export const defaultMaxBundleBytes = 1024 * 1024 * 1024;

/** The ref of the publish repository that holds what the checkout's HEAD was at the last receive. */
const incomingRef = "refs/castellan/incoming";
const sha = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Where a {@link PublishRepository} lives and how its git runs. */
export interface PublishRepositoryOptions {
  /** The bare repository: in the job's directory, never readable or writable by the sandbox. */
  readonly directory: string;
  /** Where the sandbox writes bundles: the only directory of this scheme it can write. */
  readonly exchange: string;
  /** Where the server copies a bundle before reading it: private to the server. */
  readonly staging: string;
  /** The server's git (no credentials; HOME and global config the server's own). */
  readonly git: GitContext;
  /** Default {@link defaultMaxBundleBytes}. */
  readonly maxBundleBytes?: number;
}

/**
 * The server-owned bare repository a job publishes from. The agent controls every byte of the
 * checkout, `.git/` included, so the server never runs git there; instead the checkout's new
 * commits come here as a bundle, written by git inside the job's sandbox into the exchange
 * directory, copied by the server (no link followed, a regular file, bounded), and fetched
 * with every object checked (`transfer.fsckObjects`). Ancestry checks and the push with the
 * token run here only, over a repository whose config, hooks and objects only the server
 * wrote. See docs/architecture.md, "Trust boundary".
 */
export class PublishRepository {
  private known = new Set<string>();
  private sequence = 0;

  constructor(private readonly options: PublishRepositoryOptions) {}

  /**
   * Makes the repository and takes the checkout's HEAD (and `also`, the base commit) into it.
   * Runs only before the agent does: the checkout is then as the server cloned it, so git may
   * read it on the host this once.
   */
  async seedFromPristine(checkout: string, also: readonly string[] = []): Promise<string | undefined> {
    const { git } = this.options;
    await this.initEmpty();
    const head = await runGit(["rev-parse", "--verify", "--quiet", "HEAD"], checkout, git).then(
      (text) => text.trim(),
      () => undefined,
    );
    if (head === undefined) return undefined;
    const wanted = [...new Set([head, ...also.filter((commit) => sha.test(commit))])];
    await this.git([
      "fetch",
      "--quiet",
      "--no-tags",
      "--update-shallow",
      checkout,
      ...wanted.map((commit, index) => `${commit}:refs/castellan/seed-${index}`),
    ]);
    for (const commit of wanted) this.known.add(commit);
    return head;
  }

  /**
   * Takes the checkout's HEAD into the repository and resolves with its sha (undefined for a
   * checkout with no commit). Inside the sandbox: HEAD is read, and when it is new a bundle of
   * what the repository lacks is written to the exchange directory. The server then copies and
   * fetches it; the sha answered is what the fetched ref holds, not what the sandbox said.
   */
  async receive(checkout: CheckoutGit, call: CheckoutGitCallOptions = {}): Promise<string | undefined> {
    // Exit 1 is a checkout with no commit yet; any other failure is the sandbox's or git's, and reported.
    const claimed = (
      await checkout.run(["rev-parse", "--verify", "--quiet", "HEAD"], call).catch((error: unknown) => {
        if (error instanceof GitCommandError && error.exitCode === 1) return "";
        throw error;
      })
    ).trim();
    if (claimed === "") return undefined;
    if (!sha.test(claimed)) throw new GitCommandError("The checkout's HEAD is not a commit id.", null);
    if (await this.has(claimed, call.signal)) return claimed;
    const name = this.bundleName("head");
    const exclusions = [...this.known].map((commit) => `^${commit}`);
    const bundle = (not: readonly string[]) =>
      checkout.run(["bundle", "create", "--quiet", this.exchangePath(name), "HEAD", ...not], call);
    try {
      // A commit named as a prerequisite that the checkout no longer has fails the bundle: the
      // objects the repository already holds then come again.
      await bundle(exclusions).catch(() => bundle([]));
      return await this.fetchFromExchange(name, incomingRef, call.signal);
    } finally {
      await rm(this.exchangePath(name), { force: true });
    }
  }

  /** A fresh name for a bundle in the exchange directory. */
  bundleName(label: string): string {
    return `${label}-${++this.sequence}-${Date.now()}.bundle`;
  }

  /** Where the sandbox writes the bundle `name`. */
  exchangePath(name: string): string {
    return join(this.options.exchange, name);
  }

  /**
   * Copies the bundle `name` the sandbox wrote out of the exchange directory and fetches its
   * `HEAD` into `ref`, every object checked; resolves with the commit `ref` then holds.
   */
  async fetchFromExchange(name: string, ref: string, signal?: AbortSignal): Promise<string> {
    const copy = await this.copyIn(this.exchangePath(name), name);
    try {
      await this.git(["fetch", "--quiet", "--no-tags", copy, `+HEAD:${ref}`], signal);
    } finally {
      await rm(copy, { force: true });
    }
    const received = (await this.git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], signal)).trim();
    this.known.add(received);
    return received;
  }

  /** Makes the repository empty (a bootstrap's new history has nothing to share). */
  async initEmpty(): Promise<void> {
    await rm(this.options.directory, { recursive: true, force: true });
    await makePrivateDirectory(this.options.exchange);
    await makePrivateDirectory(this.options.staging);
    await runGit(["init", "--quiet", "--bare", this.options.directory], this.options.staging, this.options.git);
    this.known.clear();
  }

  /** True when `ancestor` is an ancestor of (or equal to) `descendant`, both in this repository. */
  async isAncestor(ancestor: string, descendant: string, signal?: AbortSignal): Promise<boolean> {
    return this.git(["merge-base", "--is-ancestor", ancestor, descendant], signal).then(
      () => true,
      (error: unknown) => {
        if (error instanceof GitCommandError && error.exitCode === 1) return false;
        throw error;
      },
    );
  }

  /** Pushes `commit` to `url`'s `refs/heads/<branch>`, with `lease` and `force` as given; `auth` only here. */
  async push(options: {
    readonly url: string;
    readonly commit: string;
    readonly branch: string;
    readonly lease?: string;
    readonly force?: boolean;
    readonly auth: Readonly<Record<string, string>>;
    readonly signal?: AbortSignal;
  }): Promise<void> {
    const args = [
      "push",
      "--no-verify",
      ...(options.force ? ["--force"] : []),
      ...(options.lease ? [`--force-with-lease=refs/heads/${options.branch}:${options.lease}`] : []),
      options.url,
      `${options.commit}:refs/heads/${options.branch}`,
    ];
    await runGit(args, this.options.directory, {
      ...this.options.git,
      ...(options.signal ? { signal: options.signal } : {}),
      env: { ...this.options.git.env, ...options.auth },
    });
  }

  /** Git in the publish repository, every received object checked; `signal` replaces the job's. */
  git(args: readonly string[], signal?: AbortSignal): Promise<string> {
    return runGit(
      ["-c", "transfer.fsckObjects=true", "-c", "fetch.fsckObjects=true", ...args],
      this.options.directory,
      signal ? { ...this.options.git, signal } : this.options.git,
    );
  }

  private async has(commit: string, signal?: AbortSignal): Promise<boolean> {
    if (this.known.has(commit)) return true;
    return this.git(["cat-file", "-e", `${commit}^{commit}`], signal).then(
      () => true,
      () => false,
    );
  }

  /**
   * Copies the sandbox's bundle into the private staging directory: opened without following
   * a link and without blocking on a FIFO, a regular file no larger than the bound.
   */
  private async copyIn(written: string, name: string): Promise<string> {
    const bound = this.options.maxBundleBytes ?? defaultMaxBundleBytes;
    const handle = await open(written, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const copy = join(this.options.staging, name);
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw new GitCommandError("The sandbox's bundle is not a regular file.", null);
      if (stats.size > bound) {
        throw new GitCommandError(
          `The checkout's new commits are ${stats.size} bytes, over the bound of ${bound}.`,
          null,
        );
      }
      const out = await open(copy, "wx", 0o600);
      try {
        const buffer = Buffer.allocUnsafe(1024 * 1024);
        let total = 0;
        for (;;) {
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
          if (bytesRead === 0) break;
          total += bytesRead;
          if (total > bound)
            throw new GitCommandError(`The checkout's new commits passed the bound of ${bound} bytes.`, null);
          await out.write(buffer, 0, bytesRead);
        }
      } finally {
        await out.close();
      }
    } catch (error) {
      await rm(copy, { force: true });
      throw error;
    } finally {
      await handle.close();
    }
    return copy;
  }
}
