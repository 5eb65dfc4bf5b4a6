/** The reviewer briefing the agent writes at the checkout root; lifted into the PR description. */
export const prDescriptionFile = ".castellan-pr-description.md";
/** The work the agent suggests for later, as JSON at the checkout root. */
export const followUpsFile = ".castellan-follow-ups.json";
/** The agent's own estimate of the change's size, as JSON at the checkout root. */
export const effortFile = ".castellan-effort.json";

/**
 * The most bytes of one sentinel the server reads: 1 MiB. Far past any honest briefing (the
 * description is cut to 60,000 characters anyway); a bigger file is refused unread.
 */
export const maxSentinelBytes = 1_048_576;
