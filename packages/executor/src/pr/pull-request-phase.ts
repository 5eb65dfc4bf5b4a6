import type { SentinelsReading } from "../sentinels/read-sentinels.js";
import { composePrBody, refreshPrBody } from "../sentinels/report-region.js";
import { ensurePullRequest } from "./host/ensure-pull-request.js";
import { githubHost } from "./host/github-host.js";
import type { PullRequestHost } from "./host/pull-request.js";

/** The body's `pullRequest`. */
export interface PullRequestSpec {
  readonly host: "github";
  readonly repository: string;
  readonly apiURL?: string;
  readonly title: string;
  readonly description: string;
  readonly draft?: boolean;
}

/** What the PR step did. */
export interface PullRequestOutcome {
  readonly prUrl: string;
  readonly number: number;
  readonly created: boolean;
  readonly refreshed: boolean;
  /** `agent` when the agent's briefing gave the description, `fallback` when the body's did. */
  readonly prDescriptionSource: "agent" | "fallback";
}

/**
 * Opens the pull request of the work branch, or finds the open one (a resumed job, or a 422
 * "already exists"). The agent's briefing, when it left a usable one, is the description (and
 * its heading the title, where the rule allows); otherwise the body's title and description.
 * The server's report goes in the report region. An existing PR is refreshed in place only by
 * an agent briefing, keeping its report region; the fallback never refreshes.
 */
export async function openPullRequest(options: {
  readonly spec: PullRequestSpec;
  readonly token: string;
  readonly branch: string;
  readonly baseBranch: string;
  readonly briefing: SentinelsReading["description"];
  readonly report: string;
  readonly scrub: (text: string) => string;
  readonly signal: AbortSignal;
  /** The host adapter. Default `githubHost` over the spec's `apiURL`. */
  readonly host?: PullRequestHost;
}): Promise<PullRequestOutcome> {
  const { spec } = options;
  const host =
    options.host ??
    githubHost({
      repository: spec.repository,
      token: options.token,
      ...(spec.apiURL ? { apiURL: spec.apiURL } : {}),
      signal: options.signal,
      scrub: options.scrub,
    });
  const briefing = options.briefing;
  const title = briefing?.title ?? spec.title;
  const description = briefing?.body ?? spec.description;
  const owner = spec.repository.split("/")[0] as string;
  const ensured = await ensurePullRequest(host, {
    owner,
    head: options.branch,
    base: options.baseBranch,
    title,
    body: composePrBody(description, options.report),
    ...(spec.draft !== undefined ? { draft: spec.draft } : {}),
    refresh: (existing) => (briefing ? { title, body: refreshPrBody(existing.body ?? "", description) } : undefined),
  });
  return {
    prUrl: ensured.pullRequest.url,
    number: ensured.pullRequest.number,
    created: ensured.created,
    refreshed: ensured.refreshed,
    prDescriptionSource: briefing ? "agent" : "fallback",
  };
}
