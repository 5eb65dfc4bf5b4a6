// The refusal of a page's own move (a link, a redirect, a script) to an Origin the Session has
// not admitted. Its remedy names only what would be admitted: a new tab where the declared
// Origins allow that Origin and a tab is free, the current tab where none is free, and where
// the Origin is outside the declared list, no browser tool at all (the host must admit it).
import { type AdmittedOrigins, BrowserToolError, maxBrowserTabs } from "@castellan/node-runner";

/**
 * The `browser_origin_not_admitted` error for a page that tried to open `origin`.
 * `openTabs` is how many tabs the Session has now (at most {@link maxBrowserTabs} are allowed).
 */
export function pageOriginNotAdmitted(origin: string, admitted: AdmittedOrigins, openTabs: number): BrowserToolError {
  const refused = `The page tried to open ${origin}, which this Session has not admitted; the page stayed where it was.`;
  if (!admitted.admissible(origin)) {
    return new BrowserToolError(
      "browser_origin_not_admitted",
      `${refused} ${origin} is not among the Origins this agent may open, so no browser tool can open it; ` +
        "continue without it, or ask the user to have the host admit that Origin.",
    );
  }
  if (openTabs >= maxBrowserTabs) {
    return new BrowserToolError(
      "browser_origin_not_admitted",
      `${refused} Open that Origin with browser_navigate { url } in this tab (approval asks; ` +
        `the Session already has ${openTabs} tabs, the most allowed, so no new tab), then repeat the step there.`,
    );
  }
  return new BrowserToolError(
    "browser_origin_not_admitted",
    `${refused} Open that Origin with browser_navigate { url, newTab: true } (approval asks), ` +
      "then browser_switch_tab back and repeat.",
  );
}
