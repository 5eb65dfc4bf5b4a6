// One call of GitHub's REST API: the headers it wants, a bounded read of the answer, the
// rate-limit retries, and every failure as a PullRequestError whose message names the call.
import { setTimeout as delay } from "node:timers/promises";
import { errorMessage } from "@castellan/harness";
import { executorVersion } from "../../config/executor-version.js";
import { readBoundedText } from "./bounded-body.js";
import { errorDetail } from "./github-answer.js";
import { PullRequestError } from "./pull-request-error.js";
import { isRateLimited, rateLimitWaitMs } from "./rate-limit.js";

/** How every call of one host is made; built by `githubHost` from its options. */
export interface GithubClient {
  /** The API root with no trailing slash, path prefix included (`https://host/api/v3`). */
  readonly root: string;
  readonly token: string;
  readonly fetch: typeof fetch;
  /** Waits before a retry; undefined for the default timer, which the signal cuts short. */
  readonly sleep: ((ms: number) => Promise<void>) | undefined;
  readonly signal: AbortSignal | undefined;
  readonly maxRetries: number;
  readonly maxWaitMs: number;
  readonly backoffMs: number;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly now: () => number;
  readonly scrub: (text: string) => string;
}

/** What GitHub answered: its status and headers, and the body's text. */
interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** The `User-Agent` every call sends: GitHub refuses a call without one. */
export const githubUserAgent = `castellan-executor/${executorVersion}`;

/**
 * Makes `method path` (path from the API root, query included) with `body` as JSON, and
 * returns the parsed 2xx answer. A rate-limited answer is retried up to `maxRetries` times;
 * anything else that is not 2xx, a network failure, a timeout and an answer over the byte
 * bound reject with `PullRequestError`. A stop through the client's signal rejects with its reason.
 */
export async function githubRequest(
  client: GithubClient,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const call = `${method} ${path}`;
  const fail = (text: string, status?: number, extra: { alreadyExists?: boolean; cause?: unknown } = {}) =>
    new PullRequestError(clean(client, `GitHub ${call} ${text}`), { status, ...extra });
  for (let retry = 0; ; retry++) {
    const answer = await send(client, method, path, body, fail);
    if (answer.status >= 200 && answer.status < 300) {
      if (answer.text === "") return undefined;
      try {
        return JSON.parse(answer.text) as unknown;
      } catch {
        throw fail(`answered ${answer.status} with a body that is not JSON`, answer.status);
      }
    }
    const limited = isRateLimited(answer.status, answer.headers);
    if (limited && retry < client.maxRetries) {
      const wait = rateLimitWaitMs(answer.headers, retry, {
        now: client.now(),
        backoffMs: client.backoffMs,
        maxWaitMs: client.maxWaitMs,
      });
      await pause(client, wait);
      continue;
    }
    const detail = errorDetail(answer.text);
    const spent = limited ? ` (still rate-limited after ${retry} ${retry === 1 ? "retry" : "retries"})` : "";
    throw fail(`answered ${answer.status}${spent}${detail.text ? `: ${detail.text}` : ""}`, answer.status, {
      alreadyExists: answer.status === 422 && detail.alreadyExists,
    });
  }
}

async function send(
  client: GithubClient,
  method: string,
  path: string,
  body: unknown,
  fail: (text: string, status?: number, extra?: { cause?: unknown }) => PullRequestError,
): Promise<Answer> {
  client.signal?.throwIfAborted();
  const timeout = AbortSignal.timeout(client.timeoutMs);
  const signal = client.signal ? AbortSignal.any([client.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await client.fetch(`${client.root}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${client.token}`,
        accept: "application/vnd.github+json",
        "x-github-api-version": "2022-11-28",
        "user-agent": githubUserAgent,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal,
    });
  } catch (error) {
    if (client.signal?.aborted) throw client.signal.reason;
    throw fail(`failed: ${networkReason(error, timeout, client.timeoutMs)}`, undefined, { cause: error });
  }
  let text: string | undefined;
  try {
    text = await readBoundedText(response, client.maxResponseBytes);
  } catch (error) {
    if (client.signal?.aborted) throw client.signal.reason;
    throw fail(`failed while reading its answer: ${networkReason(error, timeout, client.timeoutMs)}`, undefined, {
      cause: error,
    });
  }
  if (text === undefined) {
    throw fail(`answered ${response.status} with more than ${client.maxResponseBytes} bytes; refused`, response.status);
  }
  return { status: response.status, headers: response.headers, text };
}

/** Waits `ms`; the signal cuts the wait short with its reason. */
async function pause(client: GithubClient, ms: number): Promise<void> {
  if (client.sleep) {
    await client.sleep(ms);
    client.signal?.throwIfAborted();
    return;
  }
  try {
    await delay(ms, undefined, client.signal ? { signal: client.signal } : {});
  } catch (error) {
    if (client.signal?.aborted) throw client.signal.reason;
    throw error;
  }
}

/** Why a request got no answer, in a few words: undici's `fetch failed` alone says nothing. */
function networkReason(error: unknown, timeout: AbortSignal, timeoutMs: number): string {
  if (timeout.aborted) return `no answer within ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string") return cause.message;
  return errorMessage(error);
}

/** The message scrubbed by the caller's scrubber, and the token taken out whatever that did. */
function clean(client: GithubClient, text: string): string {
  const scrubbed = client.scrub(text);
  return client.token ? scrubbed.split(client.token).join("[redacted]") : scrubbed;
}
